"""One Godunov step of the LWR traffic-flow model on a set of road links (macroscopic traffic simulation, the
cell transmission model of Daganzo 1994).

Densities rho (normalized by the jam density) in X cells along each of R links; Greenshields flux
f(rho) = rho * (1 - rho) (free-flow speed 1), critical density 1/2. Each interface passes the smaller of the
upstream cell's demand and the downstream cell's supply:

    D(rho) = f(min(rho, 1/2))      S(rho) = f(max(rho, 1/2))      F_{i+1/2} = min(D(rho_i), S(rho_{i+1}))
    rho_i' = rho_i - lam * (F_{i+1/2} - F_{i-1/2})

with lam = dt * v_f / dx (a mode) and zero-gradient (transmissive) link ends. BLOCK_R x BLOCK_X tiles read the
two neighbours of each cell from the input and write a separate output.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "no-op"


@triton.jit
def _demand(r):
    c = tl.where(r < 0.5, r, 0.5)
    return c * (1.0 - c)


@triton.jit
def _supply(r):
    c = tl.where(r > 0.5, r, 0.5)
    return c * (1.0 - c)


@triton.jit
def lwr_kernel(rho_ptr, out_ptr, R, X, lam, s_rr, s_rx, s_or, s_ox, BLOCK_R: tl.constexpr, BLOCK_X: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_X + tl.arange(0, BLOCK_X).to(tl.int64)
    mask = (rows < R)[:, None] & (cols < X)[None, :]
    left = tl.where(cols > 0, cols - 1, 0)
    right = tl.where(cols < X - 1, cols + 1, X - 1)
    base = rho_ptr + rows[:, None] * s_rr
    rho = tl.load(base + cols[None, :] * s_rx, mask=mask, other=0.0).to(tl.float32)
    rho_l = tl.load(base + left[None, :] * s_rx, mask=mask, other=0.0).to(tl.float32)
    rho_r = tl.load(base + right[None, :] * s_rx, mask=mask, other=0.0).to(tl.float32)
    d_l = _demand(rho_l)
    s_c = _supply(rho)
    d_c = _demand(rho)
    s_r = _supply(rho_r)
    f_in = tl.where(d_l < s_c, d_l, s_c)
    f_out = tl.where(d_c < s_r, d_c, s_r)
    new = rho - lam * (f_out - f_in)
    tl.store(out_ptr + rows[:, None] * s_or + cols[None, :] * s_ox, rho.to(out_ptr.dtype.element_ty), mask=mask)


def lwr_godunov_step(rho: torch.Tensor, lam: float = 0.5, BLOCK_R: int = 8, BLOCK_X: int = 64) -> torch.Tensor:
    R, X = rho.shape
    out = torch.empty((R, X), dtype=rho.dtype, device=rho.device)
    if R == 0 or X == 0:
        return out
    grid = (triton.cdiv(R, BLOCK_R), triton.cdiv(X, BLOCK_X))
    lwr_kernel[grid](rho, out, R, X, lam, rho.stride(0), rho.stride(1), out.stride(0), out.stride(1),
                     BLOCK_R=BLOCK_R, BLOCK_X=BLOCK_X)
    return out


def _flux(c: torch.Tensor) -> torch.Tensor:
    return c * (1.0 - c)


def reference(rho: torch.Tensor, lam: float = 0.5) -> torch.Tensor:
    half = torch.full_like(rho, 0.5)
    demand = _flux(torch.where(rho < 0.5, rho, half))
    supply = _flux(torch.where(rho > 0.5, rho, half))
    d_ext = torch.cat((demand[:, :1], demand), dim=1)       # ghost cell upstream: copy of the first cell
    s_ext = torch.cat((supply, supply[:, -1:]), dim=1)      # ghost cell downstream: copy of the last cell
    flux = torch.where(d_ext < s_ext, d_ext, s_ext)         # X + 1 interfaces
    return rho - lam * (flux[:, 1:] - flux[:, :-1])


spec = kcheck.Spec(
    name="hx39_lwr_godunov_step",
    kernel=lwr_godunov_step,
    reference=reference,
    inputs=[kcheck.Tensor("R", "X", name="rho")],
    dims={"R": kcheck.Dim(nominal=24), "X": kcheck.Dim(nominal=400, large=False)},  # X tiles: grid axis 1
    params={"lam": [0.5, 0.9]},
    configs=[{"BLOCK_R": 8, "BLOCK_X": 64}, {"BLOCK_R": 2, "BLOCK_X": 256}],
)
