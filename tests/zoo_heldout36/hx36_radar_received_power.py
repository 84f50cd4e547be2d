"""Radar: received echo power from the monostatic radar equation,

    P_r = P_t * G^2 * lambda^2 * sigma / ((4 pi)^3 * R^4),

for targets (rows: radar cross-section sigma, range R) at every carrier of a frequency-agile waveform (columns:
wavelength lambda). [BLOCK_T, BLOCK_F] tiles in fp32, strides honoured. P_t and G are the system's constants."""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-constant"

P_T = 2.0      # transmitted power (normalised)
GAIN = 3.0     # antenna gain (linear)
FOUR_PI = 4.0 * math.pi


@triton.jit
def received_power_kernel(sig_ptr, r_ptr, lam_ptr, out_ptr, T, F, s_s, s_r, s_l, s_ot, s_of, P_T: tl.constexpr,
                          GAIN: tl.constexpr, FOUR_PI: tl.constexpr, BLOCK_T: tl.constexpr,
                          BLOCK_F: tl.constexpr):
    pid_t = tl.program_id(0).to(tl.int64)
    pid_f = tl.program_id(1).to(tl.int64)
    t = pid_t * BLOCK_T + tl.arange(0, BLOCK_T).to(tl.int64)
    f = pid_f * BLOCK_F + tl.arange(0, BLOCK_F).to(tl.int64)
    sigma = tl.load(sig_ptr + t * s_s, mask=t < T, other=0.0).to(tl.float32)
    rng = tl.load(r_ptr + t * s_r, mask=t < T, other=1.0).to(tl.float32)
    lam = tl.load(lam_ptr + f * s_l, mask=f < F, other=0.0).to(tl.float32)
    r2 = rng * rng
    target = sigma / (r2 * r2)
    scale = P_T * GAIN * GAIN / (FOUR_PI * FOUR_PI)
    pr = scale * target[:, None] * (lam * lam)[None, :]
    mask = (t < T)[:, None] & (f < F)[None, :]
    tl.store(out_ptr + t[:, None] * s_ot + f[None, :] * s_of, pr.to(out_ptr.dtype.element_ty), mask=mask)


def received_power(sigma: torch.Tensor, rng: torch.Tensor, lam: torch.Tensor, BLOCK_T: int = 32,
                   BLOCK_F: int = 32) -> torch.Tensor:
    T, F = sigma.shape[0], lam.shape[0]
    out = torch.empty((T, F), dtype=sigma.dtype, device=sigma.device)
    if T == 0 or F == 0:
        return out
    grid = (triton.cdiv(T, BLOCK_T), triton.cdiv(F, BLOCK_F))
    received_power_kernel[grid](sigma, rng, lam, out, T, F, sigma.stride(0), rng.stride(0), lam.stride(0),
                                out.stride(0), out.stride(1), P_T=P_T, GAIN=GAIN, FOUR_PI=FOUR_PI,
                                BLOCK_T=BLOCK_T, BLOCK_F=BLOCK_F)
    return out


def reference(sigma: torch.Tensor, rng: torch.Tensor, lam: torch.Tensor) -> torch.Tensor:
    target = sigma / rng ** 4
    return P_T * GAIN ** 2 / FOUR_PI ** 3 * target[:, None] * (lam ** 2)[None, :]


spec = kcheck.Spec(
    name="hx36_radar_received_power",
    kernel=received_power,
    reference=reference,
    inputs=[kcheck.Tensor("T", name="sigma"), kcheck.Tensor("T", name="range"), kcheck.Tensor("F", name="wavelength")],
    dims={"T": kcheck.Dim(nominal=150), "F": kcheck.Dim(nominal=64)},
    configs=[{"BLOCK_T": 32, "BLOCK_F": 32}, {"BLOCK_T": 64, "BLOCK_F": 16}],
    # no 'tiny' data: a subnormal range (R^4 underflows to 0 in fp32) is not a radar target
    patterns=["randn", "zeros", "ones", "eye", "arange", "large", "nonfinite", "constant", "large_mean"],
    properties=[kcheck.props.linear(0)],
)
