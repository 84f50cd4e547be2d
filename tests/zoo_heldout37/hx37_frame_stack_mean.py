"""Mean stacking of a sequence of astronomical exposures (photometry): frames is [T, H, W], T registered frames of
an H x W detector; the stacked image is the per-pixel mean over the T frames.

Each program owns BLOCK pixels of the (flattened) H x W image and walks the T frames one at a time, adding each
frame's pixels into an fp32 running sum; the mean is rounded once into the frames' dtype. Frame and pixel strides
are honoured (a frame may be a view of a larger buffer), offsets are int64.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "low-precision-accumulation"


@triton.jit
def stack_mean_kernel(x_ptr, out_ptr, T, HW, W, s_t, s_h, s_w, s_oh, s_ow, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    pix = pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = pix < HW
    h = pix // W
    w = pix % W
    ptrs = x_ptr + h * s_h + w * s_w
    acc = tl.zeros([BLOCK], dtype=x_ptr.dtype.element_ty)
    for t in range(0, T):
        acc += tl.load(ptrs + t * s_t, mask=mask, other=0.0)
    mean = acc / T
    tl.store(out_ptr + h * s_oh + w * s_ow, mean.to(out_ptr.dtype.element_ty), mask=mask)


def frame_stack_mean(frames: torch.Tensor, BLOCK: int = 256) -> torch.Tensor:
    T, H, W = frames.shape
    out = torch.empty((H, W), dtype=frames.dtype, device=frames.device)
    if H * W == 0:
        return out
    if T == 0:
        return out.fill_(float("nan"))
    stack_mean_kernel[(triton.cdiv(H * W, BLOCK),)](frames, out, T, H * W, W, frames.stride(0), frames.stride(1),
                                                   frames.stride(2), out.stride(0), out.stride(1), BLOCK=BLOCK)
    return out


spec = kcheck.Spec(
    name="hx37_frame_stack_mean",
    kernel=frame_stack_mean,
    reference=lambda frames: frames.mean(0),
    inputs=[kcheck.Tensor("T", "H", "W", name="frames")],
    dims={"T": kcheck.Dim(nominal=1024), "H": kcheck.Dim(nominal=12), "W": kcheck.Dim(nominal=20)},
    reduce=["T"],
    configs=[{"BLOCK": 256}, {"BLOCK": 64}],
)
