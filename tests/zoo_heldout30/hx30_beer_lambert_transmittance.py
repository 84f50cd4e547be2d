"""Beer-Lambert transmittance of a set of samples over a grid of wavelengths: sample m with concentration c[m] and a
species of molar absorptivity eps[n] at wavelength n, path length L,

    T[m, n] = exp(-L * c[m] * eps[n])

Square BLOCK x BLOCK output tiles: the tile's concentrations run down its rows, the absorptivities along its columns.
fp32 arithmetic, int64 offsets."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-axis"


@triton.jit
def transmittance_kernel(c_ptr, eps_ptr, t_ptr, M, N, path, stride_c, stride_e, stride_tm, stride_tn,
                         BLOCK: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    rmask = rows < M
    cmask = cols < N
    c = tl.load(c_ptr + rows * stride_c, mask=rmask, other=0.0).to(tl.float32)
    eps = tl.load(eps_ptr + cols * stride_e, mask=cmask, other=0.0).to(tl.float32)
    absorbance = c[None, :] * eps[:, None]
    t = tl.exp(-path * absorbance)
    tl.store(t_ptr + rows[:, None] * stride_tm + cols[None, :] * stride_tn, t.to(t_ptr.dtype.element_ty),
             mask=rmask[:, None] & cmask[None, :])


def transmittance(conc: torch.Tensor, eps: torch.Tensor, path: float = 1.0, BLOCK: int = 32) -> torch.Tensor:
    M, N = conc.shape[0], eps.shape[0]
    t = torch.empty((M, N), dtype=conc.dtype, device=conc.device)
    if M == 0 or N == 0:
        return t
    grid = (triton.cdiv(M, BLOCK), triton.cdiv(N, BLOCK))
    transmittance_kernel[grid](conc, eps, t, M, N, path, conc.stride(0), eps.stride(0), t.stride(0), t.stride(1),
                               BLOCK=BLOCK)
    return t


def reference(conc: torch.Tensor, eps: torch.Tensor, path: float = 1.0) -> torch.Tensor:
    return torch.exp(-path * conc[:, None] * eps[None, :])


spec = kcheck.Spec(
    name="hx30_beer_lambert_transmittance",
    kernel=transmittance,
    reference=reference,
    inputs=[kcheck.Tensor("M", name="concentration"), kcheck.Tensor("N", name="absorptivity")],
    dims={"M": kcheck.Dim(nominal=200), "N": kcheck.Dim(nominal=300)},
    configs=[{"BLOCK": 32}, {"BLOCK": 16}],
    params={"path": [1.0, 0.1]},
)
