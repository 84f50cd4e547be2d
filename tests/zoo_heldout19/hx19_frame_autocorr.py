"""Short-time autocorrelation of audio frames (the first step of LPC analysis and pitch detection): for each frame
x[m, :] of N samples and each lag k < L,

    r[m, k] = (1 / N) * sum_{t < N - k} x[m, t] * x[m, t + k]      (biased estimator; 0 when k >= N)

x is [M, N] (any strides), r is [M, L] in x's dtype. Each program takes BLOCK_M frames; for every lag it walks the
frame in BLOCK_N chunks and keeps a per-frame fp32 running sum."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "low-precision-accumulation"


@triton.jit
def autocorr_kernel(x_ptr, r_ptr, M, N, L, stride_xm, stride_xn, stride_rm, stride_rl,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    x_row = x_ptr + rows[:, None] * stride_xm
    for k in range(0, L):
        acc = tl.zeros([BLOCK_M], dtype=x_ptr.dtype.element_ty)
        for start in range(0, N - k, BLOCK_N):
            t = start + tl.arange(0, BLOCK_N).to(tl.int64)
            mask = row_mask[:, None] & (t < N - k)[None, :]
            a = tl.load(x_row + t[None, :] * stride_xn, mask=mask, other=0.0)
            b = tl.load(x_row + (t + k)[None, :] * stride_xn, mask=mask, other=0.0)
            acc += tl.sum(a * b, axis=1)
        r = acc / N
        tl.store(r_ptr + rows * stride_rm + k * stride_rl, r.to(r_ptr.dtype.element_ty), mask=row_mask)


def autocorr(x: torch.Tensor, lags: torch.Tensor, BLOCK_N: int = 128) -> torch.Tensor:
    M, N = x.shape
    L = lags.shape[0]
    r = torch.empty((M, L), dtype=x.dtype, device=x.device)
    if M == 0 or L == 0:
        return r
    if N == 0:
        return r.zero_()
    block_m = max(1, min(2048 // BLOCK_N, triton.next_power_of_2(M)))
    autocorr_kernel[(triton.cdiv(M, block_m),)](x, r, M, N, L, x.stride(0), x.stride(1), r.stride(0), r.stride(1),
                                                BLOCK_M=block_m, BLOCK_N=BLOCK_N)
    return r


def lag_ids(ctx: kcheck.CaseContext) -> torch.Tensor:
    return torch.arange(ctx.dims["L"], device=ctx.device)


def reference(x: torch.Tensor, lags: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    cols = []
    for k in range(lags.shape[0]):
        cols.append((x[:, :N - k] * x[:, k:]).sum(-1) / N if k < N else x.new_zeros(M))
    return torch.stack(cols, dim=-1) if cols else x.new_zeros(M, 0)


spec = kcheck.Spec(
    name="hx19_frame_autocorr",
    kernel=autocorr,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="frames"), kcheck.Custom(lag_ids, name="lags", dims=("L",))],
    dims={"M": kcheck.Dim(nominal=32), "N": kcheck.Dim(nominal=480, real=(400, 2880)), "L": kcheck.Dim(nominal=12, max=16, real=())},
    reduce=["N"],
    configs=[{"BLOCK_N": 128}, {"BLOCK_N": 32}],
)
