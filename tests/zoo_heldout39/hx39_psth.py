"""Peri-stimulus time histogram (neuroscience): the trial-averaged firing rate of a neuron in each time bin.

spikes[r, b] is the spike count of trial r in bin b (aligned on the stimulus); the rate in spikes/s is

    rate[b] = sum_r spikes[r, b] / (R * bin_width)

A column reduction: each program owns BLOCK_B bins and walks the R trials in BLOCK_R-row chunks, every lane of
the [BLOCK_R, BLOCK_B] tile keeping a running fp32 sum, reduced over the tile at the end. bin_width (s) is a mode.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "low-precision-accumulation"


@triton.jit
def psth_kernel(x_ptr, out_ptr, R, B, scale, s_xr, s_xb, s_o, BLOCK_R: tl.constexpr, BLOCK_B: tl.constexpr):
    bins = tl.program_id(0).to(tl.int64) * BLOCK_B + tl.arange(0, BLOCK_B).to(tl.int64)
    b_mask = bins < B
    acc = tl.zeros([BLOCK_R, BLOCK_B], dtype=x_ptr.dtype.element_ty)
    for start in range(0, R, BLOCK_R):
        trials = start + tl.arange(0, BLOCK_R).to(tl.int64)
        mask = (trials < R)[:, None] & b_mask[None, :]
        x = tl.load(x_ptr + trials[:, None] * s_xr + bins[None, :] * s_xb, mask=mask, other=0.0)
        acc += x
    rate = tl.sum(acc, axis=0) * scale
    tl.store(out_ptr + bins * s_o, rate.to(out_ptr.dtype.element_ty), mask=b_mask)


def psth(spikes: torch.Tensor, bin_width: float = 0.01, BLOCK_R: int = 64, BLOCK_B: int = 32) -> torch.Tensor:
    R, B = spikes.shape
    out = torch.empty((B,), dtype=spikes.dtype, device=spikes.device)
    if B == 0:
        return out
    scale = 1.0 / (R * bin_width) if R else float("nan")
    psth_kernel[(triton.cdiv(B, BLOCK_B),)](spikes, out, R, B, scale, spikes.stride(0), spikes.stride(1),
                                            out.stride(0), BLOCK_R=BLOCK_R, BLOCK_B=BLOCK_B)
    return out


def reference(spikes: torch.Tensor, bin_width: float = 0.01) -> torch.Tensor:
    return spikes.sum(0) / (spikes.shape[0] * bin_width)


spec = kcheck.Spec(
    name="hx39_psth",
    kernel=psth,
    reference=reference,
    inputs=[kcheck.Tensor("R", "B", name="spikes")],
    dims={"R": kcheck.Dim(nominal=4000), "B": kcheck.Dim(nominal=50)},
    params={"bin_width": [0.01, 0.05]},
    reduce=["R"],
    configs=[{"BLOCK_R": 64, "BLOCK_B": 32}, {"BLOCK_R": 16, "BLOCK_B": 64}],
)
