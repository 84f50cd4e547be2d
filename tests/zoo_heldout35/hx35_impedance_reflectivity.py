"""Normal-incidence reflection coefficients from an acoustic-impedance log (seismic reflectivity series).

For each trace m and interface j between layers j and j + 1:
    r[m, j] = (Z[m, j + 1] - Z[m, j]) / (Z[m, j + 1] + Z[m, j]),   j = 0 .. N - 2
so a trace of N layers gives N - 1 coefficients. Impedances are positive (rho * v). One program per (trace,
interface block); fp32 arithmetic, strides honoured.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "off-by-one-mask"


@triton.jit
def reflectivity_kernel(z_ptr, r_ptr, N, s_zm, s_zn, s_rm, s_rn, BLOCK: tl.constexpr):
    trace = tl.program_id(0).to(tl.int64)
    j = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = j < N
    row = z_ptr + trace * s_zm
    upper = tl.load(row + j * s_zn, mask=mask, other=1.0).to(tl.float32)
    lower = tl.load(row + (j + 1) * s_zn, mask=mask, other=1.0).to(tl.float32)
    r = (lower - upper) / (lower + upper)
    tl.store(r_ptr + trace * s_rm + j * s_rn, r.to(r_ptr.dtype.element_ty), mask=mask)


def reflectivity(z, BLOCK=128):
    M, N = z.shape
    out = torch.empty((M, max(N - 1, 0)), dtype=z.dtype, device=z.device)
    if M == 0 or N < 2:
        return out
    reflectivity_kernel[(M, triton.cdiv(N - 1, BLOCK))](z, out, N, z.stride(0), z.stride(1), out.stride(0),
                                                        out.stride(1), BLOCK=BLOCK)
    return out


def reference(z):
    return (z[:, 1:] - z[:, :-1]) / (z[:, 1:] + z[:, :-1])


def impedance(ctx):
    # layered earth: impedances 1.5e6 .. 1.2e7 kg/(m^2 s), in units of 1e6
    M, N = ctx.dims["M"], ctx.dims["N"]
    return (1.5 + 10.5 * ctx.rand(M, N, dtype=torch.float32)).to(ctx.dtype)


spec = kcheck.Spec(
    name="hx35_impedance_reflectivity",
    kernel=reflectivity,
    reference=reference,
    inputs=[kcheck.Custom(impedance, name="impedance", dims=("M", "N"))],
    dims={"M": kcheck.Dim(nominal=24), "N": kcheck.Dim(nominal=700, min=1)},
    configs=[{"BLOCK": 128}, {"BLOCK": 32}],
)
