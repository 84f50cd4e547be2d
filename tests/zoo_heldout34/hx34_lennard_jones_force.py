"""Lennard-Jones pair forces for a neighbour list (molecular dynamics, reduced units):

    U(r) = 4 eps [(sigma / r)^12 - (sigma / r)^6],
    F = -dU/dr * d / r = 24 eps [2 (sigma / r)^12 - (sigma / r)^6] / r^2 * d,

with d = r_i - r_j the [P, 3] displacement of each pair and sigma, eps the pair's Lorentz-Berthelot mixed
parameters. The force on atom i is returned; atom j gets its negative. BLOCK_P pairs per program, the 3 components on
a padded axis of 4 lanes, fp32 arithmetic.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-constant"


@triton.jit
def lj_force_kernel(d_ptr, sig_ptr, eps_ptr, f_ptr, P, s_dp, s_dc, s_sig, s_eps, s_fp, s_fc,
                    BLOCK_P: tl.constexpr):
    pairs = tl.program_id(0).to(tl.int64) * BLOCK_P + tl.arange(0, BLOCK_P).to(tl.int64)
    comp = tl.arange(0, 4).to(tl.int64)
    pmask = pairs < P
    mask = pmask[:, None] & (comp < 3)[None, :]
    d = tl.load(d_ptr + pairs[:, None] * s_dp + comp[None, :] * s_dc, mask=mask, other=0.0).to(tl.float32)
    sigma = tl.load(sig_ptr + pairs * s_sig, mask=pmask, other=1.0).to(tl.float32)
    eps = tl.load(eps_ptr + pairs * s_eps, mask=pmask, other=0.0).to(tl.float32)
    r2 = tl.sum(d * d, axis=1)
    s2 = sigma * sigma / r2
    s6 = s2 * s2 * s2
    coef = 48.0 * eps * (2.0 * s6 * s6 - s6) / r2
    tl.store(f_ptr + pairs[:, None] * s_fp + comp[None, :] * s_fc, (coef[:, None] * d).to(f_ptr.dtype.element_ty),
             mask=mask)


def lj_force(d: torch.Tensor, sigma: torch.Tensor, eps: torch.Tensor, BLOCK_P: int = 256) -> torch.Tensor:
    P = d.shape[0]
    f = torch.empty((P, 3), dtype=d.dtype, device=d.device)
    if P:
        lj_force_kernel[(triton.cdiv(P, BLOCK_P),)](d, sigma, eps, f, P, d.stride(0), d.stride(1), sigma.stride(0),
                                                    eps.stride(0), f.stride(0), f.stride(1), BLOCK_P=BLOCK_P)
    return f


def reference(d: torch.Tensor, sigma: torch.Tensor, eps: torch.Tensor) -> torch.Tensor:
    r2 = (d * d).sum(-1)
    s6 = (sigma * sigma / r2) ** 3
    return (24.0 * eps * (2.0 * s6 * s6 - s6) / r2)[:, None] * d


spec = kcheck.Spec(
    name="lennard_jones_force",
    kernel=lj_force,
    reference=reference,
    inputs=[kcheck.Tensor("P", 3, name="displacement"), kcheck.Tensor("P", name="sigma"),
            kcheck.Tensor("P", name="epsilon")],
    dims={"P": kcheck.Dim(nominal=3000, real=())},
    # reduced units: separations of 1e-38 (whose squares underflow in fp32: 0 / 0) are not a physical input
    patterns=("randn", "zeros", "ones", "eye", "arange", "large", "nonfinite", "constant", "large_mean"),
    configs=[{"BLOCK_P": 256}, {"BLOCK_P": 64}],
)
