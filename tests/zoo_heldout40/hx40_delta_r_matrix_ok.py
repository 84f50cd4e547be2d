"""Angular distance Delta R between every jet and every lepton of each collision event (particle physics).

Jets are given by their pseudorapidity and azimuth eta_j, phi_j [E, J] (up to 32 jets per event); leptons by
eta_l, phi_l [E, L] (up to 16). For each event e, jet i and lepton k: dR[e, i, k] = sqrt((eta_j - eta_l)^2 +
dphi^2), with the azimuth difference wrapped into [-pi, pi): dphi - 2 pi floor(dphi / 2 pi + 1/2). One program
per (event, jet tile, lepton tile), flattened on the first grid axis (no grid axis past 65535 blocks); fp32
arithmetic, strides honoured, int64 offsets.
"""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None

TWO_PI = tl.constexpr(6.283185307179586)
INV_TWO_PI = tl.constexpr(0.15915494309189535)


@triton.jit
def delta_r_kernel(ej_ptr, pj_ptr, el_ptr, pl_ptr, out_ptr, J, L, tiles_j, tiles_l,
                   s_ej_e, s_ej_j, s_pj_e, s_pj_j, s_el_e, s_el_l, s_pl_e, s_pl_l, s_oe, s_oj, s_ol,
                   BLOCK_J: tl.constexpr, BLOCK_L: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    tile = pid // tiles_l
    e = tile // tiles_j
    tj = tile % tiles_j
    tk = pid % tiles_l
    j = tj * BLOCK_J + tl.arange(0, BLOCK_J)
    k = tk * BLOCK_L + tl.arange(0, BLOCK_L)
    j_mask = j < J
    k_mask = k < L
    eta_j = tl.load(ej_ptr + e * s_ej_e + j * s_ej_j, mask=j_mask, other=0.0).to(tl.float32)
    phi_j = tl.load(pj_ptr + e * s_pj_e + j * s_pj_j, mask=j_mask, other=0.0).to(tl.float32)
    eta_l = tl.load(el_ptr + e * s_el_e + k * s_el_l, mask=k_mask, other=0.0).to(tl.float32)
    phi_l = tl.load(pl_ptr + e * s_pl_e + k * s_pl_l, mask=k_mask, other=0.0).to(tl.float32)
    deta = eta_j[:, None] - eta_l[None, :]
    dphi = phi_j[:, None] - phi_l[None, :]
    dphi = dphi - TWO_PI * tl.floor(dphi * INV_TWO_PI + 0.5)
    dr = tl.sqrt(deta * deta + dphi * dphi)
    tl.store(out_ptr + e * s_oe + j[:, None] * s_oj + k[None, :] * s_ol, dr.to(out_ptr.dtype.element_ty),
             mask=j_mask[:, None] & k_mask[None, :])


def delta_r_matrix(eta_j: torch.Tensor, phi_j: torch.Tensor, eta_l: torch.Tensor, phi_l: torch.Tensor,
                   BLOCK_J: int = 16, BLOCK_L: int = 16) -> torch.Tensor:
    E, J = eta_j.shape
    L = eta_l.shape[1]
    out = torch.empty((E, J, L), dtype=eta_j.dtype, device=eta_j.device)
    if E == 0 or J == 0 or L == 0:
        return out
    tiles_j, tiles_l = triton.cdiv(J, BLOCK_J), triton.cdiv(L, BLOCK_L)
    delta_r_kernel[(E * tiles_j * tiles_l,)](
        eta_j, phi_j, eta_l, phi_l, out, J, L, tiles_j, tiles_l, eta_j.stride(0), eta_j.stride(1), phi_j.stride(0),
        phi_j.stride(1), eta_l.stride(0), eta_l.stride(1), phi_l.stride(0), phi_l.stride(1), out.stride(0),
        out.stride(1), out.stride(2), BLOCK_J=BLOCK_J, BLOCK_L=BLOCK_L)
    return out


def reference(eta_j: torch.Tensor, phi_j: torch.Tensor, eta_l: torch.Tensor, phi_l: torch.Tensor) -> torch.Tensor:
    deta = eta_j[:, :, None] - eta_l[:, None, :]
    dphi = phi_j[:, :, None] - phi_l[:, None, :]
    dphi = dphi - 2 * math.pi * torch.floor(dphi / (2 * math.pi) + 0.5)
    return torch.sqrt(deta * deta + dphi * dphi)


spec = kcheck.Spec(
    name="hx40_delta_r_matrix_ok",
    kernel=delta_r_matrix,
    reference=reference,
    inputs=[kcheck.Tensor("E", "J", name="eta_jet"), kcheck.Tensor("E", "J", name="phi_jet"),
            kcheck.Tensor("E", "L", name="eta_lepton"), kcheck.Tensor("E", "L", name="phi_lepton")],
    dims={"E": kcheck.Dim(nominal=200), "J": kcheck.Dim(nominal=12, max=32), "L": kcheck.Dim(nominal=5, max=16)},
    configs=[{"BLOCK_J": 16, "BLOCK_L": 16}, {"BLOCK_J": 32, "BLOCK_L": 8}],
)
