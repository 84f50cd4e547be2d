"""Welch-style averaged periodogram: the mean over T frames of each frequency bin's power,

    psd[f] = (1 / T) * sum_t (re[t, f]^2 + im[t, f]^2)

re/im are the (T, F) real and imaginary parts of the frames' spectra (any strides). The frames are split into
chunks of BLOCK_T; each program sums its chunk for BLOCK_F bins and adds that into an fp32 buffer with
tl.atomic_add; the launcher scales by 1/T and casts to the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def psd_partial_kernel(re_ptr, im_ptr, acc_ptr, T, F, srt, srf, sit, sif,
                       BLOCK_T: tl.constexpr, BLOCK_F: tl.constexpr):
    t = tl.program_id(0).to(tl.int64) * BLOCK_T + tl.arange(0, BLOCK_T)
    f = tl.program_id(1).to(tl.int64) * BLOCK_F + tl.arange(0, BLOCK_F)
    fmask = f < F
    mask = (t < T)[:, None] & fmask[None, :]
    re = tl.load(re_ptr + t[:, None] * srt + f[None, :] * srf, mask=mask, other=0.0).to(tl.float32)
    im = tl.load(im_ptr + t[:, None] * sit + f[None, :] * sif, mask=mask, other=0.0).to(tl.float32)
    power = tl.sum(re * re + im * im, axis=0)
    tl.atomic_add(acc_ptr + f, power, mask=fmask)


def welch_psd_average(re: torch.Tensor, im: torch.Tensor, BLOCK_T: int = 32, BLOCK_F: int = 128) -> torch.Tensor:
    T, F = re.shape
    acc = torch.empty(F, dtype=torch.float32, device=re.device)
    if T == 0 or F == 0:
        return acc.fill_(float("nan") if T == 0 else 0.0).to(re.dtype)
    grid = (triton.cdiv(T, BLOCK_T), triton.cdiv(F, BLOCK_F))
    psd_partial_kernel[grid](re, im, acc, T, F, re.stride(0), re.stride(1), im.stride(0), im.stride(1),
                             BLOCK_T=BLOCK_T, BLOCK_F=BLOCK_F)
    return (acc / T).to(re.dtype)


def reference(re: torch.Tensor, im: torch.Tensor) -> torch.Tensor:
    return (re * re + im * im).mean(0)


spec = kcheck.Spec(
    name="welch_psd_average",
    kernel=welch_psd_average,
    reference=reference,
    inputs=[kcheck.Tensor("T", "F", name="re"), kcheck.Tensor("T", "F", name="im")],
    dims={"T": kcheck.Dim(nominal=64, real=()), "F": kcheck.Dim(nominal=256, real=())},
    reduce=["T"],
    configs=[{"BLOCK_T": 32, "BLOCK_F": 128}, {"BLOCK_T": 8, "BLOCK_F": 32}],
)

BUG_CLASS = "uninitialized-accumulator"
