"""Per-frequency band energy of a magnitude spectrogram: E[f] = sum_t S[t, f]^2 over the T frames (the long-term
average spectrum before normalisation). A 2-D grid of [BLOCK_T, BLOCK_F] tiles: each program sums its tile over the
frames in fp32 and adds the partial sums atomically into an fp32 accumulator, returned in the input dtype; int64
offsets, strides honoured."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "uninitialized-accumulator"


@triton.jit
def band_energy_kernel(s_ptr, acc_ptr, T, F, s_t, s_f, BLOCK_T: tl.constexpr, BLOCK_F: tl.constexpr):
    pid_t = tl.program_id(0).to(tl.int64)
    pid_f = tl.program_id(1).to(tl.int64)
    t = pid_t * BLOCK_T + tl.arange(0, BLOCK_T)
    f = pid_f * BLOCK_F + tl.arange(0, BLOCK_F)
    f_mask = f < F
    mask = (t < T)[:, None] & f_mask[None, :]
    s = tl.load(s_ptr + t[:, None] * s_t + f[None, :] * s_f, mask=mask, other=0.0).to(tl.float32)
    part = tl.sum(s * s, axis=0)
    tl.atomic_add(acc_ptr + f, part, mask=f_mask)


def band_energy(S: torch.Tensor, BLOCK_T: int = 32, BLOCK_F: int = 64) -> torch.Tensor:
    T, F = S.shape
    acc = torch.empty((F,), dtype=torch.float32, device=S.device)
    if T and F:
        grid = (triton.cdiv(T, BLOCK_T), triton.cdiv(F, BLOCK_F))
        band_energy_kernel[grid](S, acc, T, F, S.stride(0), S.stride(1), BLOCK_T=BLOCK_T, BLOCK_F=BLOCK_F)
    return acc.to(S.dtype)


def reference(S: torch.Tensor) -> torch.Tensor:
    return (S * S).sum(0)


spec = kcheck.Spec(
    name="hx31_band_energy_totals",
    kernel=band_energy,
    reference=reference,
    inputs=[kcheck.Tensor("T", "F")],
    # grid axis 1 (frequency tiles) is limited to 65535 blocks: F stays out of the past-2**31 cases
    dims={"T": kcheck.Dim(nominal=200), "F": kcheck.Dim(nominal=257, large=False)},
    reduce=["T"],
    configs=[{"BLOCK_T": 32, "BLOCK_F": 64}, {"BLOCK_T": 8, "BLOCK_F": 128}],
)
