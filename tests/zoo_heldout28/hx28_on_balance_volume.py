"""On-balance volume (OBV), the running volume-flow indicator, for a batch of price/volume series:

    OBV[t] = OBV[t-1] + volume[t] * sign(price[t] - price[t-1]),    OBV[0] = 0

(a flat price adds nothing). One program per BLOCK_M series walks the time axis in BLOCK_T-wide chunks: the
signed volumes of a chunk are prefix-summed with tl.cumsum in fp32 and offset by the running total of the chunks
before. Strides honoured, int64 offsets; outputs in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "low-precision-accumulation"


@triton.jit
def obv_kernel(p_ptr, v_ptr, out_ptr, M, T, s_pm, s_pt, s_vm, s_vt, s_om, s_ot,
               BLOCK_M: tl.constexpr, BLOCK_T: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = (rows < M)[:, None]
    carry = tl.zeros([BLOCK_M], dtype=tl.float32)
    for start in range(0, T, BLOCK_T):
        t = start + tl.arange(0, BLOCK_T).to(tl.int64)
        mask = row_mask & (t < T)[None, :]
        prev_mask = mask & (t >= 1)[None, :]
        p = tl.load(p_ptr + rows[:, None] * s_pm + t[None, :] * s_pt, mask=mask, other=0.0)
        p_prev = tl.load(p_ptr + rows[:, None] * s_pm + (t - 1)[None, :] * s_pt, mask=prev_mask, other=0.0)
        v = tl.load(v_ptr + rows[:, None] * s_vm + t[None, :] * s_vt, mask=mask, other=0.0)
        signed = tl.where(prev_mask & (p > p_prev), v, tl.where(prev_mask & (p < p_prev), -v, 0.0))
        obv = carry[:, None] + tl.cumsum(signed, axis=1)
        tl.store(out_ptr + rows[:, None] * s_om + t[None, :] * s_ot, obv.to(out_ptr.dtype.element_ty), mask=mask)
        carry += tl.sum(signed, axis=1)


def on_balance_volume(price: torch.Tensor, volume: torch.Tensor, BLOCK_T: int = 1024) -> torch.Tensor:
    M, T = price.shape
    out = torch.empty((M, T), dtype=price.dtype, device=price.device)
    if M == 0 or T == 0:
        return out
    block_m = 4
    obv_kernel[(triton.cdiv(M, block_m),)](
        price, volume, out, M, T, price.stride(0), price.stride(1), volume.stride(0), volume.stride(1),
        out.stride(0), out.stride(1), BLOCK_M=block_m, BLOCK_T=BLOCK_T)
    return out


def reference(price: torch.Tensor, volume: torch.Tensor) -> torch.Tensor:
    dp = price[:, 1:] - price[:, :-1]
    step = torch.where(dp > 0, volume[:, 1:], torch.where(dp < 0, -volume[:, 1:], torch.zeros_like(dp)))
    return torch.cat((torch.zeros_like(price[:, :1]), step.cumsum(-1)), dim=-1)


spec = kcheck.Spec(
    name="on_balance_volume",
    kernel=on_balance_volume,
    reference=reference,
    inputs=[kcheck.Tensor("M", "T", name="price"), kcheck.Tensor("M", "T", name="volume")],
    dims={"M": kcheck.Dim(nominal=16), "T": kcheck.Dim(nominal=2048, min=1)},
    reduce=["T"],
    configs=[{"BLOCK_T": 1024}, {"BLOCK_T": 256}],
)
