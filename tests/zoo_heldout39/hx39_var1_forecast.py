"""One-step-ahead forecasts of a first-order vector autoregression, VAR(1) (econometrics).

With the fitted intercept c (K) and coefficient matrix A (K x K, row i: equation of variable i), the forecast
made from each observed state y_t (a row of Y, T x K) is

    yhat_{t+1} = c + A y_t,        i.e.   Yhat = Y A^T + c

computed with tl.dot on BLOCK_T x BLOCK_N output tiles, the inner dimension in BLOCK_K steps, an fp32
accumulator (fp32 operands multiplied in IEEE fp32, not TF32: forecasts feed impulse responses). Strides are
honoured, offsets int64.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "index-transposition"


@triton.jit
def var1_kernel(y_ptr, a_ptr, c_ptr, out_ptr, T, K, s_yt, s_yk, s_a0, s_a1, s_c, s_ot, s_ok,
                BLOCK_T: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_T + tl.arange(0, BLOCK_T).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    rk = tl.arange(0, BLOCK_K).to(tl.int64)
    acc = tl.zeros([BLOCK_T, BLOCK_N], dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        kk = k + rk
        y = tl.load(y_ptr + rows[:, None] * s_yt + kk[None, :] * s_yk,
                    mask=(rows < T)[:, None] & (kk < K)[None, :], other=0.0)
        # [BLOCK_K, BLOCK_N] tile of A^T: element (j, i) is A[i, j]
        at = tl.load(a_ptr + cols[None, :] * s_a1 + kk[:, None] * s_a0,
                     mask=(kk < K)[:, None] & (cols < K)[None, :], other=0.0)
        acc = tl.dot(y, at, acc, input_precision="ieee")
    c = tl.load(c_ptr + cols * s_c, mask=cols < K, other=0.0).to(tl.float32)
    out = acc + c[None, :]
    tl.store(out_ptr + rows[:, None] * s_ot + cols[None, :] * s_ok, out.to(out_ptr.dtype.element_ty),
             mask=(rows < T)[:, None] & (cols < K)[None, :])


def var1_forecast(y: torch.Tensor, a: torch.Tensor, c: torch.Tensor, BLOCK_T: int = 32, BLOCK_N: int = 32,
                  BLOCK_K: int = 32) -> torch.Tensor:
    T, K = y.shape
    out = torch.empty((T, K), dtype=y.dtype, device=y.device)
    if T == 0 or K == 0:
        return out
    grid = (triton.cdiv(T, BLOCK_T), triton.cdiv(K, BLOCK_N))
    var1_kernel[grid](y, a, c, out, T, K, y.stride(0), y.stride(1), a.stride(0), a.stride(1), c.stride(0),
                      out.stride(0), out.stride(1), BLOCK_T=BLOCK_T, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return out


def reference(y: torch.Tensor, a: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    return y @ a.T + c


spec = kcheck.Spec(
    name="hx39_var1_forecast",
    kernel=var1_forecast,
    reference=reference,
    inputs=[kcheck.Tensor("T", "K", name="y"), kcheck.Tensor("K", "K", name="A"), kcheck.Tensor("K", name="c")],
    dims={"T": kcheck.Dim(nominal=200), "K": kcheck.Dim(nominal=40, max=256)},
    reduce=["K"],
    configs=[{"BLOCK_T": 32, "BLOCK_N": 32, "BLOCK_K": 32}, {"BLOCK_T": 64, "BLOCK_N": 16, "BLOCK_K": 16}],
)
