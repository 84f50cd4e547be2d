"""Octahedral encoding of direction vectors (Cigolle et al., "A Survey of Efficient Representations for Independent
Unit Vectors"): n = (x, y, z) is projected onto the octahedron |x| + |y| + |z| = 1 and the lower hemisphere folded
over, giving two coordinates in [-1, 1] per vector:

    p = (x, y) / (|x| + |y| + |z|)
    z < 0:  p = ((1 - |p.y|) * signNotZero(p.x), (1 - |p.x|) * signNotZero(p.y))

signNotZero(v) is +1 for v >= 0. A zero vector encodes to (0, 0) (the fold keeps it at (+-1, +-1) only for z < 0,
which a zero vector is not). Input [N, 3] with any strides, output [N, 2]; int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "int32-overflow"


@triton.jit
def octahedral_encode_kernel(n_ptr, out_ptr, N, s0, s1, so0, so1, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK + tl.arange(0, BLOCK)
    mask = rows < N
    x = tl.load(n_ptr + rows * s0, mask=mask, other=0.0).to(tl.float32)
    y = tl.load(n_ptr + rows * s0 + s1, mask=mask, other=0.0).to(tl.float32)
    z = tl.load(n_ptr + rows * s0 + 2 * s1, mask=mask, other=0.0).to(tl.float32)
    l1 = tl.abs(x) + tl.abs(y) + tl.abs(z)
    inv = tl.where(l1 > 0, 1.0 / l1, 0.0)
    px = x * inv
    py = y * inv
    sx = tl.where(px >= 0, 1.0, -1.0)
    sy = tl.where(py >= 0, 1.0, -1.0)
    ox = tl.where(z < 0, (1.0 - tl.abs(py)) * sx, px)
    oy = tl.where(z < 0, (1.0 - tl.abs(px)) * sy, py)
    tl.store(out_ptr + rows * so0, ox.to(out_ptr.dtype.element_ty), mask=mask)
    tl.store(out_ptr + rows * so0 + so1, oy.to(out_ptr.dtype.element_ty), mask=mask)


def octahedral_encode(n: torch.Tensor, BLOCK: int = 512) -> torch.Tensor:
    N = n.shape[0]
    out = torch.empty((N, 2), dtype=n.dtype, device=n.device)
    if N:
        octahedral_encode_kernel[(triton.cdiv(N, BLOCK),)](n, out, N, n.stride(0), n.stride(1), out.stride(0),
                                                           out.stride(1), BLOCK=BLOCK)
    return out


def reference(n: torch.Tensor) -> torch.Tensor:
    x, y, z = n[:, 0], n[:, 1], n[:, 2]
    l1 = x.abs() + y.abs() + z.abs()
    inv = torch.where(l1 > 0, 1.0 / l1, torch.zeros_like(l1))
    px, py = x * inv, y * inv
    sx = torch.where(px >= 0, 1.0, -1.0)
    sy = torch.where(py >= 0, 1.0, -1.0)
    ox = torch.where(z < 0, (1.0 - py.abs()) * sx, px)
    oy = torch.where(z < 0, (1.0 - px.abs()) * sy, py)
    return torch.stack([ox, oy], dim=1)


spec = kcheck.Spec(
    name="hx24_octahedral_encode",
    kernel=octahedral_encode,
    reference=reference,
    inputs=[kcheck.Tensor("N", 3)],
    dims={"N": kcheck.Dim(nominal=4096)},
    configs=[{"BLOCK": 512}, {"BLOCK": 128}],
)
