"""Image distance of thin lenses (Gaussian lens equation 1/f = 1/u + 1/v, real-is-positive convention): for focal
length f and object distance u, v = f u / (u - f). Used per pixel for depth-of-field and defocus maps, where the
object lies near the focal plane and u - f is small against u and f.

The difference u - f is formed first (exact for nearby u and f) and v is computed as f * (u / (u - f)), which keeps
the product of two tiny distances from underflowing. Elementwise over [rows, columns] with int64 row offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "cancellation"


@triton.jit
def image_distance_kernel(f_ptr, u_ptr, out_ptr, M, N, s_fm, s_fn, s_um, s_un, s_om, s_on,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    f = tl.load(f_ptr + rows[:, None] * s_fm + cols[None, :] * s_fn, mask=mask, other=1.0).to(tl.float32)
    u = tl.load(u_ptr + rows[:, None] * s_um + cols[None, :] * s_un, mask=mask, other=2.0).to(tl.float32)
    v = 1.0 / (1.0 / f - 1.0 / u)
    tl.store(out_ptr + rows[:, None] * s_om + cols[None, :] * s_on, v.to(out_ptr.dtype.element_ty), mask=mask)


def image_distance(focal: torch.Tensor, obj: torch.Tensor, BLOCK_M: int = 16, BLOCK_N: int = 64) -> torch.Tensor:
    M, N = focal.shape
    out = torch.empty((M, N), dtype=focal.dtype, device=focal.device)
    if M == 0 or N == 0:
        return out
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    image_distance_kernel[grid](focal, obj, out, M, N, focal.stride(0), focal.stride(1), obj.stride(0),
                                obj.stride(1), out.stride(0), out.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(focal: torch.Tensor, obj: torch.Tensor) -> torch.Tensor:
    return focal * obj / (obj - focal)


spec = kcheck.Spec(
    name="thin_lens_image_distance",
    kernel=image_distance,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="focal"), kcheck.Tensor("M", "N", name="object_distance")],
    # the column tiles are grid axis 1 (at most 65535 of them on a GPU): N stays out of the past-2**31 case
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=320, large=False)},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 64}, {"BLOCK_M": 32, "BLOCK_N": 32}],
)
