"""Snake-style activation, per channel: out[b, c, t] = x + s / (a[c] + 1e-9), s = (1 - cos(a[c] * x)) / 2.

Programs take BLOCK_T time steps of one (b, c) row; s is computed in fp32; the
result is in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def snake_kernel(x_ptr, a_ptr, out_ptr, C, T, sxb, sxc, sxt, BLOCK_T: tl.constexpr):
    bc = tl.program_id(0).to(tl.int64)
    b = bc // C
    c = bc % C
    t = tl.program_id(1).to(tl.int64) * BLOCK_T + tl.arange(0, BLOCK_T)
    mask = t < T
    x = tl.load(x_ptr + b * sxb + c * sxc + t * sxt, mask=mask, other=0.0).to(tl.float32)
    a = tl.load(a_ptr + c).to(tl.float32)
    s2 = (1.0 - tl.cos(a * x)) * 0.5
    y = x + s2 / (a + 1e-9)
    tl.store(out_ptr + bc * T + t, y.to(out_ptr.dtype.element_ty), mask=mask)


def snake(x: torch.Tensor, alpha: torch.Tensor, BLOCK_T: int = 256) -> torch.Tensor:
    B, C, T = x.shape
    out = torch.empty((B, C, T), dtype=x.dtype, device=x.device)
    if out.numel():
        snake_kernel[(B * C, triton.cdiv(T, BLOCK_T))](x, alpha, out, C, T, *x.stride(), BLOCK_T=BLOCK_T)
    return out


def alphas(ctx: kcheck.CaseContext) -> torch.Tensor:
    return (ctx.rand(ctx.dims["C"], dtype=torch.float32) + 0.5).to(ctx.dtype)


def reference(x: torch.Tensor, alpha: torch.Tensor) -> torch.Tensor:
    a = alpha[None, :, None]
    return x + torch.sin(a * x).pow(2) / (a + 1e-9)


spec = kcheck.Spec(
    name="hx10_snake",
    kernel=snake,
    reference=reference,
    inputs=[kcheck.Tensor("B", "C", "T"), kcheck.Custom(alphas, name="alpha", dims=("C",))],
    dims={"B": kcheck.Dim(nominal=2), "C": kcheck.Dim(nominal=32), "T": kcheck.Dim(nominal=512)},
    configs=[{"BLOCK_T": 256}, {"BLOCK_T": 64}],
)

BUG_CLASS = "wrong-constant"
