"""One explicit step of linear hillslope diffusion of elevation profiles (geomorphology).

z'[m, i] = z[m, i] + k * (z[m, i - 1] - 2 z[m, i] + z[m, i + 1]) for interior nodes, the two end nodes held fixed
(base level / divide), with k = D dt / dx^2 <= 1/2 for stability. Each program updates BLOCK nodes of one profile,
reading its halo from a snapshot of the old elevations so that it never sees a neighbour program's new values.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "race"


@triton.jit
def hillslope_kernel(src_ptr, dst_ptr, N, k, s_sm, s_sn, s_dm, s_dn, BLOCK: tl.constexpr):
    m = tl.program_id(0).to(tl.int64)
    i = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    interior = (i > 0) & (i < N - 1)
    row = src_ptr + m * s_sm
    zc = tl.load(row + i * s_sn, mask=interior, other=0.0).to(tl.float32)
    zl = tl.load(row + (i - 1) * s_sn, mask=interior, other=0.0).to(tl.float32)
    zr = tl.load(row + (i + 1) * s_sn, mask=interior, other=0.0).to(tl.float32)
    znew = zc + k * ((zl - zc) + (zr - zc))
    tl.store(dst_ptr + m * s_dm + i * s_dn, znew.to(dst_ptr.dtype.element_ty), mask=interior)


def hillslope_step(z, k=0.3, BLOCK=128):
    M, N = z.shape
    src = z.clone()
    out = z.clone()
    if M == 0 or N < 3:
        return out
    hillslope_kernel[(M, triton.cdiv(N, BLOCK))](out, out, N, k, src.stride(0), src.stride(1), out.stride(0),
                                                 out.stride(1), BLOCK=BLOCK)
    return out


def reference(z, k=0.3):
    out = z.clone()
    out[:, 1:-1] = z[:, 1:-1] + k * ((z[:, :-2] - z[:, 1:-1]) + (z[:, 2:] - z[:, 1:-1]))
    return out


spec = kcheck.Spec(
    name="hx35_hillslope_diffusion",
    kernel=hillslope_step,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="elevation")],
    params={"k": [0.3, 0.5]},
    dims={"M": kcheck.Dim(nominal=16), "N": kcheck.Dim(nominal=600)},
    configs=[{"BLOCK": 128}, {"BLOCK": 32}],
    properties=[kcheck.props.linear()],
)
