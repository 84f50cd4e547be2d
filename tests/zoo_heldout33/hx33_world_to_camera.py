"""World-to-camera transform of a point cloud: p_cam = R^T (p_world - C), with R the camera-to-world rotation
(its columns are the camera's axes in world coordinates) and C the camera centre.

Points are rows of a [N, 3] tensor; each program takes BLOCK points as a [BLOCK, 4] tile (the fourth column
masked off) and R as a [4, 4] tile, and contracts over the world axis in fp32. Strides honoured, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "index-transposition"


@triton.jit
def world_to_camera_kernel(p_ptr, r_ptr, c_ptr, out_ptr, N, stride_pn, stride_pc, stride_r0, stride_r1,
                           stride_c, stride_on, stride_oc, BLOCK: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    k = tl.arange(0, 4)
    k_ok = k < 3
    row_mask = rows < N
    mask = row_mask[:, None] & k_ok[None, :]
    p = tl.load(p_ptr + rows[:, None] * stride_pn + k[None, :] * stride_pc, mask=mask, other=0.0).to(tl.float32)
    centre = tl.load(c_ptr + k * stride_c, mask=k_ok, other=0.0).to(tl.float32)
    d = p - centre[None, :]
    # rot[i, j] = R[i, j]: world axis i, camera axis j
    rot = tl.load(r_ptr + k[:, None] * stride_r1 + k[None, :] * stride_r0, mask=k_ok[:, None] & k_ok[None, :],
                  other=0.0).to(tl.float32)
    cam = tl.sum(d[:, :, None] * rot[None, :, :], axis=1)  # sum over world axis i of d[n, i] * R[i, j]
    tl.store(out_ptr + rows[:, None] * stride_on + k[None, :] * stride_oc, cam.to(out_ptr.dtype.element_ty),
             mask=mask)


def world_to_camera(points: torch.Tensor, rotation: torch.Tensor, centre: torch.Tensor,
                    BLOCK: int = 256) -> torch.Tensor:
    N = points.shape[0]
    out = torch.empty((N, 3), dtype=points.dtype, device=points.device)
    if N == 0:
        return out
    world_to_camera_kernel[(triton.cdiv(N, BLOCK),)](
        points, rotation, centre, out, N, points.stride(0), points.stride(1), rotation.stride(0),
        rotation.stride(1), centre.stride(0), out.stride(0), out.stride(1), BLOCK=BLOCK)
    return out


def reference(points: torch.Tensor, rotation: torch.Tensor, centre: torch.Tensor) -> torch.Tensor:
    return (points - centre) @ rotation


spec = kcheck.Spec(
    name="world_to_camera",
    kernel=world_to_camera,
    reference=reference,
    inputs=[kcheck.Tensor("N", 3, name="points"), kcheck.Tensor(3, 3, name="rotation"),
            kcheck.Tensor(3, name="centre")],
    dims={"N": kcheck.Dim(nominal=2048)},
    configs=[{"BLOCK": 256}, {"BLOCK": 32}],
)
