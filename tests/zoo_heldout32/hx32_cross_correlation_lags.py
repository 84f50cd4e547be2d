"""Raw cross-correlation of paired signals at the first lags (time-delay estimation, e.g. between two microphones):
for each row m and lag l in [0, max_lag),

    c[m, l] = sum_{t = 0}^{N - 1 - l} x[m, t] y[m, t + l]

One program per row walks t in BLOCK_T-wide chunks over a [BLOCK_L, BLOCK_T] tile (one tile row per lag, y read
shifted by the lag), the fp32 products summed per lane into an fp32 accumulator, reduced once at the
end. max_lag is a mode. Strides honoured, int64 offsets; the result has the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "low-precision-accumulation"


@triton.jit
def xcorr_kernel(x_ptr, y_ptr, out_ptr, N, L, s_xm, s_xn, s_ym, s_yn, s_om, s_ol,
                 BLOCK_L: tl.constexpr, BLOCK_T: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    lags = tl.arange(0, BLOCK_L).to(tl.int64)
    x_row = x_ptr + row * s_xm
    y_row = y_ptr + row * s_ym
    acc = tl.zeros([BLOCK_L, BLOCK_T], dtype=x_ptr.dtype.element_ty)
    for start in range(0, N, BLOCK_T):
        t = start + tl.arange(0, BLOCK_T).to(tl.int64)
        x = tl.load(x_row + t * s_xn, mask=t < N, other=0.0).to(tl.float32)
        ty = t[None, :] + lags[:, None]
        pair = (ty < N) & (lags < L)[:, None]
        y = tl.load(y_row + ty * s_yn, mask=pair, other=0.0).to(tl.float32)
        acc += tl.where(pair, x[None, :] * y, 0.0).to(acc.dtype)
    c = tl.sum(acc, axis=1)
    tl.store(out_ptr + row * s_om + lags * s_ol, c.to(out_ptr.dtype.element_ty), mask=lags < L)


def cross_correlation(x: torch.Tensor, y: torch.Tensor, max_lag: int = 8, BLOCK_T: int = 32) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, max_lag), dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    if N == 0:
        return out.zero_()
    xcorr_kernel[(M,)](x, y, out, N, max_lag, x.stride(0), x.stride(1), y.stride(0), y.stride(1), out.stride(0),
                       out.stride(1), BLOCK_L=triton.next_power_of_2(max_lag), BLOCK_T=BLOCK_T)
    return out


def reference(x: torch.Tensor, y: torch.Tensor, max_lag: int = 8) -> torch.Tensor:
    M, N = x.shape
    cols = []
    for lag in range(max_lag):
        if lag < N:
            cols.append((x[:, : N - lag] * y[:, lag:]).sum(-1))
        else:
            cols.append(torch.zeros(M, dtype=x.dtype, device=x.device))
    return torch.stack(cols, dim=-1)


spec = kcheck.Spec(
    name="hx32_cross_correlation_lags",
    kernel=cross_correlation,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("M", "N", name="y")],
    dims={"M": kcheck.Dim(nominal=8, real=()), "N": kcheck.Dim(nominal=2048, real=(2880,))},
    reduce=["N"],
    params={"max_lag": [8, 3]},
    configs=[{"BLOCK_T": 32}, {"BLOCK_T": 128}],
)
