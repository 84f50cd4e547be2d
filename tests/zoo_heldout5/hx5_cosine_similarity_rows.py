"""Row-wise cosine similarity of two embedding matrices: out[m] = <x_m, y_m> / sqrt(max(|x_m|^2 |y_m|^2, eps^2)).

Each program takes BLOCK_M rows of one block each (the block is the row length rounded up to a power of two), reads
both rows once and keeps the three sums (x.y, x.x, y.y) in fp32. The result comes back in the input dtype; int64
row offsets, any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck

EPS = 1e-8
TILE = 4096


@triton.jit
def cosine_rows_kernel(x_ptr, y_ptr, out_ptr, M, D, eps, stride_xm, stride_xd, stride_ym, stride_yd,
                       BLOCK_M: tl.constexpr, BLOCK_D: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_D).to(tl.int64)
    row_mask = rows < M
    mask = row_mask[:, None] & (cols < D)[None, :]
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xd, mask=mask, other=0.0)
    y = tl.load(y_ptr + rows[:, None] * stride_ym + cols[None, :] * stride_yd)
    x = x.to(tl.float32)
    y = y.to(tl.float32)
    dot = tl.sum(x * y, axis=1)
    xx = tl.sum(x * x, axis=1)
    yy = tl.sum(y * y, axis=1)
    denom = tl.sqrt(tl.maximum(xx * yy, eps * eps))
    tl.store(out_ptr + rows, (dot / denom).to(out_ptr.dtype.element_ty), mask=row_mask)


def cosine_rows(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    M, D = x.shape
    out = torch.empty(M, dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    if D == 0:
        return out.zero_()
    block_d = triton.next_power_of_2(D)
    block_m = max(1, min(TILE // block_d, triton.next_power_of_2(M)))
    cosine_rows_kernel[(triton.cdiv(M, block_m),)](x, y, out, M, D, EPS, x.stride(0), x.stride(1),
                                                  y.stride(0), y.stride(1), BLOCK_M=block_m, BLOCK_D=block_d)
    return out


def reference(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    dot = (x * y).sum(-1)
    norms = (x * x).sum(-1) * (y * y).sum(-1)
    return dot / torch.sqrt(torch.clamp_min(norms, EPS * EPS))


spec = kcheck.Spec(
    name="hx5_cosine_similarity_rows",
    kernel=cosine_rows,
    reference=reference,
    inputs=[kcheck.Tensor("M", "D"), kcheck.Tensor("M", "D")],
    dims={"M": kcheck.Dim(nominal=256), "D": kcheck.Dim(nominal=128, max=8192)},
    reduce=["D"],
)

BUG_CLASS = "edge-guard"
