"""Relative band power of EEG channels (neuroscience): x is [channels, F] spectral amplitudes on F frequency bins
spanning 0..f_max; the power x^2 is summed in five bands (delta, theta, alpha, beta, gamma, bounded at the bins
F/16, F/8, F/4 and F/2) and each band's power divided by the channel's total power:

    rel[c, b] = sum_{f in band b} x[c, f]^2 / sum_f x[c, f]^2,     0 for a channel with no power (a flat channel)

Each program takes BLOCK_C channels and walks the bins in BLOCK_F chunks, accumulating the five band sums (padded
to 8) in fp32 through a [BLOCK_C, BLOCK_F, 8] band-membership select. Output [channels, 5] in the input dtype;
int64 offsets, any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "division-by-zero"

BANDS = 5


def _edges(F: int) -> list[int]:
    return [0, F // 16, F // 8, F // 4, F // 2, F]


@triton.jit
def band_power_kernel(x_ptr, out_ptr, C, F, e1, e2, e3, e4, s_c, s_f, s_oc, s_ob,
                      NBANDS: tl.constexpr, BLOCK_C: tl.constexpr, BLOCK_F: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_C + tl.arange(0, BLOCK_C).to(tl.int64)
    row_mask = rows < C
    bands = tl.arange(0, 8)
    acc = tl.zeros([BLOCK_C, 8], dtype=tl.float32)
    for start in range(0, F, BLOCK_F):
        cols = start + tl.arange(0, BLOCK_F).to(tl.int64)
        mask = row_mask[:, None] & (cols < F)[None, :]
        x = tl.load(x_ptr + rows[:, None] * s_c + cols[None, :] * s_f, mask=mask, other=0.0).to(tl.float32)
        p = tl.where(mask, x * x, 0.0)
        band = (cols >= e1).to(tl.int32) + (cols >= e2).to(tl.int32) + (cols >= e3).to(tl.int32) \
            + (cols >= e4).to(tl.int32)
        member = band[:, None] == bands[None, :]  # [BLOCK_F, 8]
        acc += tl.sum(tl.where(member[None, :, :], p[:, :, None], 0.0), axis=1)
    total = tl.sum(acc, axis=1)
    rel = acc / total[:, None]
    out_mask = row_mask[:, None] & (bands < NBANDS)[None, :]
    tl.store(out_ptr + rows[:, None] * s_oc + bands[None, :] * s_ob, rel.to(out_ptr.dtype.element_ty),
             mask=out_mask)


def eeg_relative_band_power(x: torch.Tensor, BLOCK_F: int = 64) -> torch.Tensor:
    C, F = x.shape
    out = torch.empty((C, BANDS), dtype=x.dtype, device=x.device)
    if C == 0:
        return out
    block_f = min(BLOCK_F, triton.next_power_of_2(max(F, 1)))
    block_c = 4
    _, e1, e2, e3, e4, _ = _edges(F)
    band_power_kernel[(triton.cdiv(C, block_c),)](x, out, C, F, e1, e2, e3, e4, x.stride(0), x.stride(1),
                                                 out.stride(0), out.stride(1), NBANDS=BANDS, BLOCK_C=block_c,
                                                 BLOCK_F=block_f)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    p = x * x
    e = _edges(x.shape[1])
    bands = torch.stack([p[:, e[b]:e[b + 1]].sum(-1) for b in range(BANDS)], dim=-1)
    total = p.sum(-1, keepdim=True)
    return torch.where(total > 0, bands / total, torch.zeros_like(bands))


spec = kcheck.Spec(
    name="hx37_eeg_relative_band_power",
    kernel=eeg_relative_band_power,
    reference=reference,
    inputs=[kcheck.Tensor("C", "F", name="amplitudes")],
    dims={"C": kcheck.Dim(nominal=64), "F": kcheck.Dim(nominal=512)},
    output_shapes=[("C", BANDS)],
    reduce=["F"],
    configs=[{"BLOCK_F": 64}, {"BLOCK_F": 16}],
)
