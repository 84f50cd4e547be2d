"""Evaluate fitted polynomial trends on a common time grid: y[m, n] = sum_k c[m, k] * t[n]^k.

Each of the M series has K coefficients (degree K - 1, lowest power first) from a least-squares detrending fit; t is
the normalized time axis in [-1, 1] the fit used. Horner's scheme, highest power first, in fp32; tiles of BLOCK_M
series by BLOCK_N times, the coefficients read one power at a time.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "stride-assumption"


@triton.jit
def horner_kernel(c_ptr, t_ptr, y_ptr, M, N, K, s_cm, s_ck, s_t, s_ym, s_yn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    rmask = rows < M
    cmask = cols < N
    t = tl.load(t_ptr + cols * s_t, mask=cmask, other=0.0).to(tl.float32)
    y = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for j in range(0, K):
        k = K - 1 - j
        c = tl.load(c_ptr + rows * s_cm + k * s_ck, mask=rmask, other=0.0).to(tl.float32)
        y = y * t[None, :] + c[:, None]
    mask = rmask[:, None] & cmask[None, :]
    tl.store(y_ptr + rows[:, None] * s_ym + cols[None, :] * s_yn, y.to(y_ptr.dtype.element_ty), mask=mask)


def polynomial_trend(coeffs: torch.Tensor, t: torch.Tensor, BLOCK_M: int = 16, BLOCK_N: int = 128) -> torch.Tensor:
    M, K = coeffs.shape
    N = t.shape[0]
    y = torch.empty((M, N), dtype=coeffs.dtype, device=coeffs.device)
    if M == 0 or N == 0:
        return y
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    horner_kernel[grid](coeffs, t, y, M, N, K, K, 1, t.stride(0), y.stride(0),
                        y.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return y


def reference(coeffs: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    powers = t[None, :] ** torch.arange(coeffs.shape[1], dtype=t.dtype, device=t.device)[:, None]  # [K, N]
    return coeffs @ powers


def time_axis(ctx: kcheck.CaseContext) -> torch.Tensor:
    return torch.linspace(-1.0, 1.0, ctx.dims["N"], dtype=torch.float32, device=ctx.device).to(ctx.dtype)


spec = kcheck.Spec(
    name="polynomial_trend_eval",
    kernel=polynomial_trend,
    reference=reference,
    inputs=[kcheck.Tensor("M", "K", name="coeffs"), kcheck.Custom(time_axis, name="t", dims=("N",))],
    dims={"M": kcheck.Dim(nominal=64, real=()), "K": kcheck.Dim(nominal=6, max=12, real=()),
          "N": kcheck.Dim(nominal=500, real=(), large=False)},
    reduce=["K"],
    configs=[{"BLOCK_M": 16, "BLOCK_N": 128}, {"BLOCK_M": 4, "BLOCK_N": 64}],
    properties=[kcheck.props.linear(0)],
)
