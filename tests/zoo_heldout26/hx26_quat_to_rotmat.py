"""Rotation matrices from quaternions q = (w, x, y, z), [N, 4] -> [N, 3, 3], for any nonzero quaternion (not
necessarily of unit norm): with s = 2 / |q|^2,

    R = [[1 - s(y^2 + z^2),  s(xy - zw),        s(xz + yw)      ],
         [s(xy + zw),        1 - s(x^2 + z^2),  s(yz - xw)      ],
         [s(xz - yw),        s(yz + xw),        1 - s(x^2 + y^2)]]

and the identity for q = 0. Each quaternion is first divided by its largest component magnitude (R does not
change), so that tiny and huge quaternions neither underflow nor overflow. One program per BLOCK quaternions; the
nine entries are stored through the output's row and column strides.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "index-transposition"


@triton.jit
def quat_to_rotmat_kernel(q_ptr, r_ptr, N, s_qn, s_qc, s_rn, s_rr, s_rc, BLOCK: tl.constexpr):
    n = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    ok = n < N
    src = q_ptr + n * s_qn
    w = tl.load(src, mask=ok, other=0.0).to(tl.float32)
    x = tl.load(src + s_qc, mask=ok, other=0.0).to(tl.float32)
    y = tl.load(src + 2 * s_qc, mask=ok, other=0.0).to(tl.float32)
    z = tl.load(src + 3 * s_qc, mask=ok, other=0.0).to(tl.float32)
    big = tl.maximum(tl.maximum(tl.abs(w), tl.abs(x)), tl.maximum(tl.abs(y), tl.abs(z)))
    big = tl.where(big > 0.0, big, 1.0)
    w = w / big
    x = x / big
    y = y / big
    z = z / big
    n2 = w * w + x * x + y * y + z * z
    s = tl.where(n2 > 0.0, 2.0 / n2, 0.0)
    dst = r_ptr + n * s_rn
    ty = r_ptr.dtype.element_ty
    tl.store(dst, (1.0 - s * (y * y + z * z)).to(ty), mask=ok)
    tl.store(dst + s_rc, (s * (x * y - z * w)).to(ty), mask=ok)
    tl.store(dst + 2 * s_rc, (s * (x * z + y * w)).to(ty), mask=ok)
    tl.store(dst + s_rr, (s * (x * y + z * w)).to(ty), mask=ok)
    tl.store(dst + s_rr + s_rc, (1.0 - s * (x * x + z * z)).to(ty), mask=ok)
    tl.store(dst + s_rr + 2 * s_rc, (s * (y * z - x * w)).to(ty), mask=ok)
    tl.store(dst + 2 * s_rr, (s * (x * z - y * w)).to(ty), mask=ok)
    tl.store(dst + 2 * s_rr + s_rc, (s * (y * z + x * w)).to(ty), mask=ok)
    tl.store(dst + 2 * s_rr + 2 * s_rc, (1.0 - s * (x * x + y * y)).to(ty), mask=ok)


def quat_to_rotmat(q: torch.Tensor, BLOCK: int = 512) -> torch.Tensor:
    N = q.shape[0]
    R = torch.empty((N, 3, 3), dtype=q.dtype, device=q.device)
    if N == 0:
        return R
    quat_to_rotmat_kernel[(triton.cdiv(N, BLOCK),)](q, R, N, q.stride(0), q.stride(1),
                                                    R.stride(0), R.stride(2), R.stride(1), BLOCK=BLOCK)
    return R


def reference(q: torch.Tensor) -> torch.Tensor:
    big = torch.where(torch.isnan(q), torch.zeros_like(q), q).abs().amax(-1, keepdim=True)
    q = q / torch.where(big > 0, big, torch.ones_like(big))
    w, x, y, z = q.unbind(-1)
    n2 = (q * q).sum(-1)
    s = torch.where(n2 > 0, 2.0 / n2, torch.zeros_like(n2))
    rows = [
        [1 - s * (y * y + z * z), s * (x * y - z * w), s * (x * z + y * w)],
        [s * (x * y + z * w), 1 - s * (x * x + z * z), s * (y * z - x * w)],
        [s * (x * z - y * w), s * (y * z + x * w), 1 - s * (x * x + y * y)],
    ]
    return torch.stack([torch.stack(r, -1) for r in rows], -2)


spec = kcheck.Spec(
    name="hx26_quat_to_rotmat",
    kernel=quat_to_rotmat,
    reference=reference,
    inputs=[kcheck.Tensor("N", 4, name="q")],
    dims={"N": kcheck.Dim(nominal=2000)},
    configs=[{"BLOCK": 512}, {"BLOCK": 64}],
)
