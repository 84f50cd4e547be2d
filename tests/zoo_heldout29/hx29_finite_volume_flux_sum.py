"""Net outflow per cell of an unstructured finite-volume mesh: div[c] = sum of flux[f] over the faces f that cell c
owns minus the sum over the faces where c is the neighbour (OpenFOAM's owner/neighbour convention: a face's flux
leaves its owner and enters its neighbour).

One program takes BLOCK faces and adds each flux to its owner and subtracts it from its neighbour with fp32 atomics
into a zeroed buffer, cast to the flux dtype at the end.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "uninitialized-accumulator"


@triton.jit
def face_scatter_kernel(owner_ptr, neigh_ptr, flux_ptr, div_ptr, F, s_f, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    faces = pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = faces < F
    own = tl.load(owner_ptr + faces, mask=mask, other=0)
    nei = tl.load(neigh_ptr + faces, mask=mask, other=0)
    phi = tl.load(flux_ptr + faces * s_f, mask=mask, other=0.0).to(tl.float32)
    tl.atomic_add(div_ptr + own, phi, mask=mask)
    tl.atomic_add(div_ptr + nei, -phi, mask=mask)


def face_flux_divergence(owner: torch.Tensor, neighbour: torch.Tensor, flux: torch.Tensor, n_cells: int,
                         BLOCK: int = 256) -> torch.Tensor:
    F = flux.shape[0]
    div = torch.empty((n_cells,), dtype=torch.float32, device=flux.device)
    if F:
        face_scatter_kernel[(triton.cdiv(F, BLOCK),)](owner.contiguous(), neighbour.contiguous(), flux, div, F,
                                                      flux.stride(0), BLOCK=BLOCK)
    return div.to(flux.dtype)


def reference(owner: torch.Tensor, neighbour: torch.Tensor, flux: torch.Tensor, n_cells: int) -> torch.Tensor:
    div = torch.zeros((n_cells,), dtype=flux.dtype, device=flux.device)
    return div.index_add(0, owner, flux).index_add(0, neighbour, -flux)


spec = kcheck.Spec(
    name="finite_volume_flux_sum",
    kernel=face_flux_divergence,
    reference=reference,
    inputs=[kcheck.Index("F", high="C", name="owner"), kcheck.Index("F", high="C", name="neighbour"),
            kcheck.Tensor("F", name="flux"), kcheck.Scalar(lambda d: d["C"], name="n_cells")],
    dims={"F": kcheck.Dim(nominal=3000), "C": kcheck.Dim(nominal=500)},
    output_shapes=[("C",)],
    reduce=["F"],
    configs=[{"BLOCK": 256}, {"BLOCK": 64}],
)
