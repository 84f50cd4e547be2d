"""torch.addcmul as an optimizer building block: out = x + value * a * b, elementwise over [M, N] with each input's
own row stride (no copies for padded rows). A 2-D grid of (row block, column block); fp32 math."""

import torch
import triton
import triton.language as tl

import kcheck

VALUE = 0.5


@triton.jit
def addcmul_kernel(x_ptr, a_ptr, b_ptr, out_ptr, M, N, sx, sa, sb, so, value,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    r = rows[:, None]
    c = cols[None, :]
    x = tl.load(x_ptr + r * sx + c, mask=mask, other=0.0).to(tl.float32)
    a = tl.load(a_ptr + r * sa + c, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + r * sb + c, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + r * so + c, (x + value * (a * b)).to(out_ptr.dtype.element_ty), mask=mask)


def addcmul(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor, BLOCK_M: int = 8, BLOCK_N: int = 128) -> torch.Tensor:
    M, N = x.shape
    x, a, b = (t if t.stride(1) == 1 else t.contiguous() for t in (x, a, b))
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    addcmul_kernel[grid](x, a, b, out, M, N, x.stride(0), a.stride(0), b.stride(0), out.stride(0), VALUE,
                         BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


spec = kcheck.Spec(
    name="hx9_addcmul_ok",
    kernel=addcmul,
    reference=lambda x, a, b: torch.addcmul(x, a, b, value=VALUE),
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("M", "N"), kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=256)},
    configs=[{"BLOCK_M": 8, "BLOCK_N": 128}, {"BLOCK_M": 32, "BLOCK_N": 32}],
)

BUG_CLASS = None  # the planted class (from the README's table), for benchmarks/zoo.py
