"""Equilibrium constant at temperature T by the integrated van 't Hoff equation, relative to T0 = 298.15 K:

    K(T) / K(T0) = exp(-dH / R * (1/T - 1/T0)) = exp(dH / R * dT / (T0 * (T0 + dT)))

with dT = T - T0 the input (written in the difference form, which keeps the digits of 1/T - 1/T0 for T near T0)
and the reaction enthalpy dH (J/mol) a mode. 1-D, BLOCK elements per program, fp32 math, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "tail-tile-dropped"

T0 = 298.15
GAS_R = 8.314462618


@triton.jit
def van_t_hoff_kernel(dt_ptr, k_ptr, n, dh_over_r, t0, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    dt = tl.load(dt_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    k = tl.exp(dh_over_r * dt / (t0 * (t0 + dt)))
    tl.store(k_ptr + offs, k.to(k_ptr.dtype.element_ty), mask=mask)


def van_t_hoff(dt, dh=-20000.0, BLOCK=256):
    dt_c = dt.contiguous()
    n = dt_c.numel()
    k = torch.empty_like(dt_c)
    if n:
        van_t_hoff_kernel[(n // BLOCK,)](dt_c, k, n, float(dh) / GAS_R, T0, BLOCK=BLOCK)
    return k


def reference(dt, dh=-20000.0):
    return torch.exp(dh / GAS_R * dt / (T0 * (T0 + dt)))


spec = kcheck.Spec(
    name="van_t_hoff_equilibrium",
    kernel=van_t_hoff,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="dT")],
    params={"dh": [-20000.0, 45000.0]},
    dims={"N": kcheck.Dim(nominal=3000)},
    configs=[{"BLOCK": 256}, {"BLOCK": 64}],
)
