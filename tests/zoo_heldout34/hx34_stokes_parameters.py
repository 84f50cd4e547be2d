"""Linear Stokes parameters of a division-of-focal-plane polarization camera.

Each pixel is seen through polarizers at 0, 45, 90 and 135 degrees (intensities[0..3]); the Stokes vector is

    S0 = (I0 + I45 + I90 + I135) / 2,    S1 = I0 - I90,    S2 = I45 - I135,

written to the caller's [3, N] buffer. The kernel stores fp32 (the downstream degree / angle of polarization needs
the small differences S1, S2 to full precision); a half-precision buffer is filled through an fp32 staging copy.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "no-op"


@triton.jit
def stokes_kernel(i_ptr, s_ptr, N, s_ia, s_in, s_sc, s_sn, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < N
    i0 = tl.load(i_ptr + offs * s_in, mask=mask, other=0.0).to(tl.float32)
    i45 = tl.load(i_ptr + s_ia + offs * s_in, mask=mask, other=0.0).to(tl.float32)
    i90 = tl.load(i_ptr + 2 * s_ia + offs * s_in, mask=mask, other=0.0).to(tl.float32)
    i135 = tl.load(i_ptr + 3 * s_ia + offs * s_in, mask=mask, other=0.0).to(tl.float32)
    tl.store(s_ptr + offs * s_sn, 0.5 * ((i0 + i90) + (i45 + i135)), mask=mask)
    tl.store(s_ptr + s_sc + offs * s_sn, i0 - i90, mask=mask)
    tl.store(s_ptr + 2 * s_sc + offs * s_sn, i45 - i135, mask=mask)


def stokes_parameters(intensities: torch.Tensor, stokes: torch.Tensor, BLOCK: int = 1024) -> None:
    N = intensities.shape[1]
    if N == 0:
        return
    staging = stokes.float()  # the buffer itself when it is fp32
    stokes_kernel[(triton.cdiv(N, BLOCK),)](intensities, staging, N, intensities.stride(0), intensities.stride(1),
                                            staging.stride(0), staging.stride(1), BLOCK=BLOCK)


def reference(intensities: torch.Tensor) -> torch.Tensor:
    i0, i45, i90, i135 = intensities
    return torch.stack((0.5 * ((i0 + i90) + (i45 + i135)), i0 - i90, i45 - i135))


spec = kcheck.Spec(
    name="stokes_parameters",
    kernel=stokes_parameters,
    reference=reference,
    inputs=[kcheck.Tensor(4, "N", name="intensities")],
    outputs=[kcheck.Tensor(3, "N", name="stokes")],
    dims={"N": kcheck.Dim(nominal=4096, real=())},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
    properties=[kcheck.props.linear()],
)
