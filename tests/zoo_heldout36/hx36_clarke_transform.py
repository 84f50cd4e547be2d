"""Power systems: amplitude-invariant Clarke transform of three-phase samples, [N, 3] (a, b, c) to [N, 2]
(alpha, beta):

    alpha = (2a - b - c) / 3,    beta = (b - c) / sqrt(3)

One program per BLOCK samples, the three phases loaded as columns of the sample rows (any strides), fp32 math."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "stride-assumption"

INV_SQRT3 = 0.5773502691896258


@triton.jit
def clarke_kernel(x_ptr, out_ptr, N, s_xn, s_xp, s_on, s_op, INV_SQRT3: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    n = pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = n < N
    row = x_ptr + n * s_xn
    a = tl.load(row, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(row + s_xp, mask=mask, other=0.0).to(tl.float32)
    c = tl.load(row + 2 * s_xp, mask=mask, other=0.0).to(tl.float32)
    alpha = (2.0 * a - b - c) / 3.0
    beta = (b - c) * INV_SQRT3
    tl.store(out_ptr + n * s_on, alpha.to(out_ptr.dtype.element_ty), mask=mask)
    tl.store(out_ptr + n * s_on + s_op, beta.to(out_ptr.dtype.element_ty), mask=mask)


def clarke(x: torch.Tensor, BLOCK: int = 256) -> torch.Tensor:
    N = x.shape[0]
    out = torch.empty((N, 2), dtype=x.dtype, device=x.device)
    if N == 0:
        return out
    clarke_kernel[(triton.cdiv(N, BLOCK),)](x, out, N, 3, 1, out.stride(0), out.stride(1),
                                            INV_SQRT3=INV_SQRT3, BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    a, b, c = x.unbind(-1)
    return torch.stack(((2 * a - b - c) / 3, (b - c) / 3 ** 0.5), dim=-1)


spec = kcheck.Spec(
    name="hx36_clarke_transform",
    kernel=clarke,
    reference=reference,
    inputs=[kcheck.Tensor("N", 3, name="abc")],
    dims={"N": kcheck.Dim(nominal=5000)},
    configs=[{"BLOCK": 256}, {"BLOCK": 1024}],
    properties=[kcheck.props.linear()],
)
