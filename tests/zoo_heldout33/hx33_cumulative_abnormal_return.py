"""Event-study cumulative abnormal return (CAR) under the market model, one stock per row::

    CAR[m] = sum over t of (r[m, t] - alpha[m] - beta[m] * r_mkt[t])

r holds each stock's returns over the event window, r_mkt the market's, alpha and beta each stock's market-model
coefficients from the estimation window. Each program takes BLOCK_M stocks and walks the window in chunks of
BLOCK_N observations, keeping one fp32 running sum per stock; CAR is stored in the input dtype. Strides honoured.
Windows are long: minute bars over several trading weeks.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "low-precision-accumulation"

TILE = 4096  # returns per program and chunk


@triton.jit
def car_kernel(r_ptr, mkt_ptr, alpha_ptr, beta_ptr, car_ptr, M, N, stride_rm, stride_rn, stride_k, stride_a,
               stride_b, stride_c, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    alpha = tl.load(alpha_ptr + rows * stride_a, mask=row_mask, other=0.0).to(tl.float32)
    beta = tl.load(beta_ptr + rows * stride_b, mask=row_mask, other=0.0).to(tl.float32)
    acc = tl.zeros([BLOCK_M], dtype=r_ptr.dtype.element_ty)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        col_mask = cols < N
        mask = row_mask[:, None] & col_mask[None, :]
        r = tl.load(r_ptr + rows[:, None] * stride_rm + cols[None, :] * stride_rn, mask=mask,
                    other=0.0).to(tl.float32)
        mkt = tl.load(mkt_ptr + cols * stride_k, mask=col_mask, other=0.0).to(tl.float32)
        abnormal = tl.where(mask, r - alpha[:, None] - beta[:, None] * mkt[None, :], 0.0)
        acc += tl.sum(abnormal, axis=1).to(acc.dtype)
    tl.store(car_ptr + rows * stride_c, acc.to(car_ptr.dtype.element_ty), mask=row_mask)


def cumulative_abnormal_return(r: torch.Tensor, r_mkt: torch.Tensor, alpha: torch.Tensor, beta: torch.Tensor,
                               BLOCK_N: int = 64) -> torch.Tensor:
    M, N = r.shape
    car = torch.empty((M,), dtype=r.dtype, device=r.device)
    if M == 0:
        return car
    if N == 0:
        return car.zero_()
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    car_kernel[(triton.cdiv(M, block_m),)](r, r_mkt, alpha, beta, car, M, N, r.stride(0), r.stride(1),
                                           r_mkt.stride(0), alpha.stride(0), beta.stride(0), car.stride(0),
                                           BLOCK_M=block_m, BLOCK_N=block_n)
    return car


def reference(r: torch.Tensor, r_mkt: torch.Tensor, alpha: torch.Tensor, beta: torch.Tensor) -> torch.Tensor:
    return (r - alpha[:, None] - beta[:, None] * r_mkt[None, :]).sum(-1)


spec = kcheck.Spec(
    name="cumulative_abnormal_return",
    kernel=cumulative_abnormal_return,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="returns"), kcheck.Tensor("N", name="market_returns"),
            kcheck.Tensor("M", name="alpha"), kcheck.Tensor("M", name="beta")],
    dims={"M": kcheck.Dim(nominal=8), "N": kcheck.Dim(nominal=16384)},
    reduce=["N"],
    configs=[{"BLOCK_N": 64}, {"BLOCK_N": 256}],
)
