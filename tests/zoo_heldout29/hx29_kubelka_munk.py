"""Kubelka-Munk remission function of diffuse reflectance spectra (paint, paper, powders): K/S = (1 - R)^2 / (2 R),
the ratio of absorption to scattering of an opaque layer of reflectance R, used to mix pigments linearly. R is
[samples, wavelengths]; R = 0 gives +inf.

Each program takes a BLOCK_M x BLOCK_N tile (2-D grid, row tiles on axis 0); fp32 arithmetic, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "no-op"


@triton.jit
def km_kernel(r_ptr, out_ptr, M, N, s_rm, s_rn, s_om, s_on, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    r = tl.load(r_ptr + rows[:, None] * s_rm + cols[None, :] * s_rn, mask=mask, other=1.0).to(tl.float32)
    a = 1.0 - r
    ks = a * a / (2.0 * r)


def kubelka_munk(reflectance: torch.Tensor, BLOCK_M: int = 16, BLOCK_N: int = 64) -> torch.Tensor:
    M, N = reflectance.shape
    out = torch.empty((M, N), dtype=reflectance.dtype, device=reflectance.device)
    if M == 0 or N == 0:
        return out
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    km_kernel[grid](reflectance, out, M, N, reflectance.stride(0), reflectance.stride(1), out.stride(0),
                    out.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(reflectance: torch.Tensor) -> torch.Tensor:
    return (1.0 - reflectance) ** 2 / (2.0 * reflectance)


spec = kcheck.Spec(
    name="kubelka_munk",
    kernel=kubelka_munk,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="reflectance")],
    # column tiles are grid axis 1 (at most 65535 on a GPU): N stays out of the past-2**31 case
    dims={"M": kcheck.Dim(nominal=48), "N": kcheck.Dim(nominal=401, large=False)},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 64}, {"BLOCK_M": 8, "BLOCK_N": 128}],
)
