"""Per-row covariance of paired signals (feature-whitening statistics, Pearson numerators):
cov[m] = mean_n(x[m, n] * y[m, n]) - mean_n(x[m, n]) * mean_n(y[m, n]), population normalization.
One read of both rows: three fp32 running sums, several rows per program."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def row_cov_kernel(x_ptr, y_ptr, out_ptr, M, N, stride_xm, stride_xn, stride_ym, stride_yn,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    sx = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    sy = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    sxy = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]
        x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xn, mask=mask, other=0.0)
        y = tl.load(y_ptr + rows[:, None] * stride_ym + cols[None, :] * stride_yn, mask=mask, other=0.0)
        x = x.to(tl.float32)
        y = y.to(tl.float32)
        sx += x
        sy += y
        sxy += x * y
    mx = tl.sum(sx, axis=1) / N
    my = tl.sum(sy, axis=1) / N
    cov = tl.sum(sxy, axis=1) / N - mx * my
    tl.store(out_ptr + rows, cov.to(out_ptr.dtype.element_ty), mask=row_mask)


def row_covariance(x, y, BLOCK_N=256, TILE=2048):
    M, N = x.shape
    out = torch.empty(M, dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    if N == 0:
        return out.fill_(float("nan"))
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    row_cov_kernel[(triton.cdiv(M, block_m),)](x, y, out, M, N, x.stride(0), x.stride(1), y.stride(0), y.stride(1),
                                               BLOCK_M=block_m, BLOCK_N=block_n)
    return out


def reference(x, y):
    return ((x - x.mean(-1, keepdim=True)) * (y - y.mean(-1, keepdim=True))).mean(-1)


spec = kcheck.Spec(
    name="hx2_row_covariance",
    kernel=row_covariance,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=512)},
    reduce=["N"],
    configs=[{"BLOCK_N": 256}, {"BLOCK_N": 64}],
)

BUG_CLASS = "cancellation"
