"""Split-KV (flash-decoding) combine: each of S splits of the keys produced a normalized partial output o[b, s, :]
and the log-sum-exp of its scores lse[b, s]; the full attention output is
out[b, :] = sum_s exp(lse[b, s] - max_s lse[b, :]) * o[b, s, :] / sum_s exp(lse[b, s] - max_s lse[b, :]).

One program per (batch row, BLOCK_D slice of the head dimension); all S splits are held in one tile. fp32 weights.

Planted bug (exp-overflow): the split weights are exp(lse) without subtracting the largest lse: past lse = 88 (fp32)
exp overflows to inf and the output becomes inf / inf = NaN.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def combine_kernel(o_ptr, lse_ptr, out_ptr, S, D, sob, sos, sod, slb, sls, sb, sd, n_dblocks,
                   BLOCK_S: tl.constexpr, BLOCK_D: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    b = pid // n_dblocks
    ds = (pid % n_dblocks) * BLOCK_D + tl.arange(0, BLOCK_D)
    ss = tl.arange(0, BLOCK_S)
    smask = ss < S
    lse = tl.load(lse_ptr + b * slb + ss * sls, mask=smask, other=-float("inf")).to(tl.float32)
    w = tl.where(smask, tl.exp(lse), 0.0)
    den = tl.sum(w, axis=0)
    mask = smask[:, None] & (ds < D)[None, :]
    o = tl.load(o_ptr + b * sob + ss[:, None] * sos + ds[None, :] * sod, mask=mask, other=0.0).to(tl.float32)
    out = tl.sum(w[:, None] * o, axis=0) / den
    tl.store(out_ptr + b * sb + ds * sd, out.to(out_ptr.dtype.element_ty), mask=ds < D)


def splitkv_combine(o, lse, BLOCK_D=64):
    B, S, D = o.shape
    out = torch.empty((B, D), dtype=o.dtype, device=o.device)
    if B == 0 or D == 0:
        return out
    if S == 0:
        return out.fill_(float("nan"))
    n_dblocks = triton.cdiv(D, BLOCK_D)
    combine_kernel[(B * n_dblocks,)](
        o, lse, out, S, D, o.stride(0), o.stride(1), o.stride(2), lse.stride(0), lse.stride(1),
        out.stride(0), out.stride(1), n_dblocks, BLOCK_S=triton.next_power_of_2(S), BLOCK_D=BLOCK_D)
    return out


def reference(o, lse):
    w = torch.softmax(lse, dim=-1)
    return (w.unsqueeze(-1) * o).sum(dim=1)


spec = kcheck.Spec(
    name="hx11_splitkv_combine",
    kernel=splitkv_combine,
    reference=reference,
    inputs=[kcheck.Tensor("B", "S", "D", name="o_partial", pattern="randn"), kcheck.Tensor("B", "S", name="lse")],
    dims={"B": kcheck.Dim(nominal=32), "S": kcheck.Dim(nominal=16, max=256, real=(37,)), "D": kcheck.Dim(nominal=128)},
    reduce=["S"],
    configs=[{"BLOCK_D": 64}, {"BLOCK_D": 16}],
)

BUG_CLASS = "exp-overflow"  # exp(lse) without max subtraction
