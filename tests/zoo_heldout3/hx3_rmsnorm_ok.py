"""RMSNorm over the last dimension with a weight: y = x / sqrt(mean(x^2) + eps) * w. Rows that fit one tile are
handled BLOCK_M at a time; longer rows are walked in BLOCK_N chunks (sum of squares, then the write). Statistics in
fp32, int64 row offsets, any strides."""

import torch
import triton
import triton.language as tl

import kcheck

EPS = 1e-6


@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, y_ptr, M, N, eps, stride_xm, stride_xn, stride_w, stride_ym, stride_yn,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < M
    x_rows = x_ptr + rows[:, None] * stride_xm
    y_rows = y_ptr + rows[:, None] * stride_ym
    sq = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols[None, :] < N)
        x = tl.load(x_rows + cols[None, :] * stride_xn, mask=mask, other=0.0).to(tl.float32)
        sq += x * x
    rstd = 1.0 / tl.sqrt(tl.sum(sq, axis=1) / N + eps)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        col_mask = cols < N
        mask = row_mask[:, None] & col_mask[None, :]
        x = tl.load(x_rows + cols[None, :] * stride_xn, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols * stride_w, mask=col_mask, other=0.0).to(tl.float32)
        y = x * rstd[:, None] * w[None, :]
        tl.store(y_rows + cols[None, :] * stride_yn, y.to(y_ptr.dtype.element_ty), mask=mask)


def rmsnorm(x: torch.Tensor, weight: torch.Tensor, BLOCK_N: int = 1024, TILE: int = 4096) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return y
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    rmsnorm_kernel[(triton.cdiv(M, block_m),)](x, weight, y, M, N, EPS, x.stride(0), x.stride(1), weight.stride(0),
                                               y.stride(0), y.stride(1), BLOCK_M=block_m, BLOCK_N=block_n)
    return y


spec = kcheck.Spec(
    name="hx3_rmsnorm_ok",
    kernel=rmsnorm,
    reference=lambda x, w: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS) * w,
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("N", name="weight", pattern="randn")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=2048)},
    reduce=["N"],
    configs=[{"BLOCK_N": 1024}, {"BLOCK_N": 256}],
)

BUG_CLASS = None
