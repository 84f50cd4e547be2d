"""Antecedent precipitation index (hydrology, agronomy): the decayed sum of the last `window` days of rainfall,

    API[s, t] = sum_{j=0}^{window-1} k^j * P[s, t - j]      (days before the record, t - j < 0, contribute nothing)

for S stations over T days, with a recession constant k (0.85-0.98 in practice). Each program computes a
[BLOCK_S, BLOCK_T] tile of the output and walks the lags j; the weights k^j are computed once on the host (fp32)
and read per lag. Accumulation in fp32, the result in the input dtype; int64 row offsets, any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "off-by-one-mask"


@triton.jit
def api_kernel(p_ptr, w_ptr, out_ptr, S, T, WINDOW, stride_ps, stride_pt, stride_os, stride_ot,
               BLOCK_S: tl.constexpr, BLOCK_T: tl.constexpr):
    pid_s = tl.program_id(0).to(tl.int64)
    pid_t = tl.program_id(1).to(tl.int64)
    rows = pid_s * BLOCK_S + tl.arange(0, BLOCK_S).to(tl.int64)
    days = pid_t * BLOCK_T + tl.arange(0, BLOCK_T).to(tl.int64)
    mask = (rows < S)[:, None] & (days < T)[None, :]
    p_rows = p_ptr + rows[:, None] * stride_ps
    acc = tl.zeros([BLOCK_S, BLOCK_T], dtype=tl.float32)
    for j in range(0, WINDOW):
        w = tl.load(w_ptr + j)
        src = days - j
        m = mask & (src > 0)[None, :]
        p = tl.load(p_rows + src[None, :] * stride_pt, mask=m, other=0.0).to(tl.float32)
        acc += w * p
    tl.store(out_ptr + rows[:, None] * stride_os + days[None, :] * stride_ot, acc.to(out_ptr.dtype.element_ty),
             mask=mask)


def antecedent_precipitation_index(p: torch.Tensor, decay: float, window: int = 7, BLOCK_T: int = 128,
                                   BLOCK_S: int = 16) -> torch.Tensor:
    S, T = p.shape
    out = torch.empty((S, T), dtype=p.dtype, device=p.device)
    if S == 0 or T == 0:
        return out
    weights = torch.tensor([decay ** j for j in range(window)], dtype=torch.float32, device=p.device)
    block_t = min(BLOCK_T, triton.next_power_of_2(T))
    block_s = min(BLOCK_S, triton.next_power_of_2(S))
    grid = (triton.cdiv(S, block_s), triton.cdiv(T, block_t))
    api_kernel[grid](p, weights, out, S, T, window, p.stride(0), p.stride(1), out.stride(0), out.stride(1),
                     BLOCK_S=block_s, BLOCK_T=block_t)
    return out


def reference(p: torch.Tensor, decay: float, window: int = 7) -> torch.Tensor:
    T = p.shape[1]
    out = torch.zeros_like(p)
    for j in range(min(window, T)):
        out[:, j:] += (decay ** j) * p[:, : T - j]
    return out


spec = kcheck.Spec(
    name="hx38_antecedent_precipitation_index",
    kernel=antecedent_precipitation_index,
    reference=reference,
    inputs=[kcheck.Tensor("S", "T", name="rainfall"), kcheck.Scalar(0.9, name="decay")],
    dims={"S": kcheck.Dim(nominal=48), "T": kcheck.Dim(nominal=365)},
    params={"window": [7, 30]},
    configs=[{"BLOCK_T": 128}, {"BLOCK_T": 32}],
    properties=[kcheck.props.linear(0)],
)
