"""BT.601 YUV -> RGB colour conversion on planar images (full range, U and V centred on 0):

    R = Y + 1.402 V
    G = Y - 0.344136 U - 0.714136 V
    B = Y + 1.772 U

The three planes are flattened; each program converts BLOCK pixels, fp32 arithmetic, int64 offsets. Returns an
(3, N) RGB tensor.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def yuv_to_rgb_kernel(y_ptr, u_ptr, v_ptr, rgb_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    y = tl.load(y_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    u = tl.load(u_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    v = tl.load(v_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    r = y + 1.402 * v
    g = y - 0.344136 * u - 0.714136 * v
    b = y + 1.772 * u
    ty = rgb_ptr.dtype.element_ty
    tl.store(rgb_ptr + offs, r.to(ty), mask=mask)
    tl.store(rgb_ptr + n + offs, g.to(ty), mask=mask)
    tl.store(rgb_ptr + 2 * n + offs, b.to(ty), mask=mask)


def yuv_to_rgb(y: torch.Tensor, u: torch.Tensor, v: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    y, u, v = y.contiguous(), u.contiguous(), v.contiguous()
    n = y.numel()
    rgb = torch.empty((3, n), dtype=y.dtype, device=y.device)
    if n:
        yuv_to_rgb_kernel[(n // BLOCK,)](y, u, v, rgb, n, BLOCK=BLOCK)
    return rgb


def reference(y: torch.Tensor, u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    return torch.stack([y + 1.402 * v, y - 0.344136 * u - 0.714136 * v, y + 1.772 * u])


spec = kcheck.Spec(
    name="yuv_to_rgb",
    kernel=yuv_to_rgb,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="y"), kcheck.Tensor("N", name="u"), kcheck.Tensor("N", name="v")],
    dims={"N": kcheck.Dim(nominal=4096)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
    properties=[kcheck.props.linear()],
)

BUG_CLASS = "tail-tile-dropped"
