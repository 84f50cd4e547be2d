"""Auto-pool (McFee et al., adaptive pooling for weakly labelled sound events): each row of frame-level class
scores x[m, :] is pooled over time with softmax weights of sharpness alpha,

    y[m] = sum_t x[m, t] * w[m, t],    w[m, :] = softmax(alpha * x[m, :])

(alpha = 0: mean pooling; alpha -> inf: max pooling; alpha < 0 leans to the minimum). The softmax subtracts the
row's largest alpha * x before exponentiating, so the weights are exact for any magnitude. Rows fit one block
(T <= 4096), BLOCK_M rows per program, fp32 arithmetic; strides honoured, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "exp-overflow"

TILE = 4096


@triton.jit
def autopool_kernel(x_ptr, y_ptr, M, T, alpha, s_xm, s_xt, s_y, BLOCK_M: tl.constexpr, BLOCK_T: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_T).to(tl.int64)
    row_mask = rows < M
    mask = row_mask[:, None] & (cols < T)[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xt, mask=mask, other=0.0).to(tl.float32)
    z = tl.where(mask, alpha * x, -float("inf"))
    m = tl.max(z, axis=1)
    w = tl.exp(z)
    w = tl.where(mask, w, 0.0)
    y = tl.sum(x * w, axis=1) / tl.sum(w, axis=1)
    tl.store(y_ptr + rows * s_y, y.to(y_ptr.dtype.element_ty), mask=row_mask)


def autopool(x: torch.Tensor, alpha: float = 1.0) -> torch.Tensor:
    M, T = x.shape
    y = torch.empty((M,), dtype=x.dtype, device=x.device)
    if M == 0:
        return y
    block_t = triton.next_power_of_2(max(T, 1))
    block_m = max(1, min(TILE // block_t, triton.next_power_of_2(M)))
    autopool_kernel[(triton.cdiv(M, block_m),)](x, y, M, T, alpha, x.stride(0), x.stride(1), y.stride(0),
                                                BLOCK_M=block_m, BLOCK_T=block_t)
    return y


def reference(x: torch.Tensor, alpha: float = 1.0) -> torch.Tensor:
    return (x * torch.softmax(alpha * x, dim=-1)).sum(-1)


spec = kcheck.Spec(
    name="autopool",
    kernel=autopool,
    reference=reference,
    inputs=[kcheck.Tensor("M", "T", name="scores")],
    dims={"M": kcheck.Dim(nominal=64), "T": kcheck.Dim(nominal=431, min=1, max=4096)},
    reduce=["T"],
    params={"alpha": [1.0, 4.0, -2.0]},
)
