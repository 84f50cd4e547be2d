"""Predicted market shares of a multinomial logit demand model with an outside good (econometrics, BLP-style
demand estimation): for M markets with J inside products of mean utility delta[m, j], the outside good's utility
normalised to 0,

    s[m, j] = exp(delta[m, j]) / (1 + sum_k exp(delta[m, k]))

computed with the row's largest utility (at least the outside good's 0) factored out of numerator and
denominator alike, so that exp never overflows. Rows fit one block
(J <= 8192, several markets per program); fp32 inside, the input dtype out; int64 offsets, any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "exp-overflow"


@triton.jit
def shares_kernel(d_ptr, s_ptr, M, J, stride_dm, stride_dj, stride_sm, stride_sj,
                  BLOCK_M: tl.constexpr, BLOCK_J: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_J).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < J)[None, :]
    x = tl.load(d_ptr + rows[:, None] * stride_dm + cols[None, :] * stride_dj, mask=mask,
                other=-float("inf")).to(tl.float32)
    mx = tl.zeros([BLOCK_M], dtype=tl.float32)  # the outside good's utility, 0, as the reference level
    e = tl.exp(x - mx[:, None])
    s = e / (tl.exp(-mx) + tl.sum(e, axis=1))[:, None]
    tl.store(s_ptr + rows[:, None] * stride_sm + cols[None, :] * stride_sj, s.to(s_ptr.dtype.element_ty), mask=mask)


def market_shares(delta: torch.Tensor, TILE: int = 4096) -> torch.Tensor:
    M, J = delta.shape
    out = torch.empty((M, J), dtype=delta.dtype, device=delta.device)
    if M == 0 or J == 0:
        return out
    block_j = triton.next_power_of_2(J)
    block_m = max(1, min(TILE // block_j, triton.next_power_of_2(M)))
    shares_kernel[(triton.cdiv(M, block_m),)](delta, out, M, J, delta.stride(0), delta.stride(1), out.stride(0),
                                              out.stride(1), BLOCK_M=block_m, BLOCK_J=block_j)
    return out


def reference(delta: torch.Tensor) -> torch.Tensor:
    outside = torch.zeros((delta.shape[0], 1), dtype=delta.dtype, device=delta.device)
    return torch.softmax(torch.cat([outside, delta], dim=1), dim=1)[:, 1:]


spec = kcheck.Spec(
    name="hx38_blp_market_shares",
    kernel=market_shares,
    reference=reference,
    inputs=[kcheck.Tensor("M", "J", name="mean_utility")],
    dims={"M": kcheck.Dim(nominal=200), "J": kcheck.Dim(nominal=50, max=8192)},
    reduce=["J"],
    configs=[{"TILE": 4096}, {"TILE": 256}],
)
