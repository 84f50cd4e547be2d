"""Pairwise Euclidean distances, as `torch.cdist(x, y)`: out[i, j] = |x_i - y_j| for x (M, D), y (N, D). Tiles of
BLOCK_M x BLOCK_N outputs; the cross term x_i . y_j comes from tl.dot over D in BLOCK_D chunks (fp32 operands,
full-precision products), the squared norms from the same chunks."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def cdist_kernel(x_ptr, y_ptr, out_ptr, M, N, D, stride_xm, stride_xd, stride_yn, stride_yd, stride_om, stride_on,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    rm = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    xy = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    xx = tl.zeros([BLOCK_M], dtype=tl.float32)
    yy = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, D, BLOCK_D):
        rd = start + tl.arange(0, BLOCK_D).to(tl.int64)
        x = tl.load(x_ptr + rm[:, None] * stride_xm + rd[None, :] * stride_xd,
                    mask=(rm[:, None] < M) & (rd[None, :] < D), other=0.0).to(tl.float32)
        y = tl.load(y_ptr + rn[:, None] * stride_yn + rd[None, :] * stride_yd,
                    mask=(rn[:, None] < N) & (rd[None, :] < D), other=0.0).to(tl.float32)
        xy = tl.dot(x, tl.trans(y), xy, input_precision="ieee")
        xx += tl.sum(x * x, axis=1)
        yy += tl.sum(y * y, axis=1)
    d2 = xx[:, None] + yy[None, :] - 2.0 * xy
    dist = tl.sqrt(tl.maximum(d2, 0.0))
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(out_ptr + rm[:, None] * stride_om + rn[None, :] * stride_on, dist.to(out_ptr.dtype.element_ty),
             mask=mask)


def cdist(x: torch.Tensor, y: torch.Tensor, BLOCK_M: int = 32, BLOCK_N: int = 32, BLOCK_D: int = 32) -> torch.Tensor:
    M, D = x.shape
    N, _ = y.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    if D == 0:
        return out.zero_()
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    cdist_kernel[grid](x, y, out, M, N, D, x.stride(0), x.stride(1), y.stride(0), y.stride(1),
                       out.stride(0), out.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_D=BLOCK_D)
    return out


spec = kcheck.Spec(
    name="hx3_cdist",
    kernel=cdist,
    reference=lambda x, y: torch.cdist(x, y, compute_mode="donot_use_mm_for_euclid_dist"),
    inputs=[kcheck.Tensor("M", "D"), kcheck.Tensor("N", "D")],
    dims={"M": kcheck.Dim(nominal=256), "N": kcheck.Dim(nominal=128), "D": kcheck.Dim(nominal=64)},
    reduce=["D"],
    configs=[{"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_D": 32}, {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_D": 16}],
)

BUG_CLASS = "cancellation"
