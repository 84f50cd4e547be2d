"""Static-camera background subtraction: remove each pixel's temporal mean from a stack of frames,

    out[t, p] = x[t, p] - (1 / T) * sum_s x[s, p],

x being [T, P] (T frames, P flattened pixels). A program owns BLOCK pixel columns and walks the frames in BLOCK-row
chunks twice: once to sum, once to write. Both passes work on x - x[0, p] (shifted data), so a bright, nearly
static scene (values near 1e4) loses no precision to the fp32 sums and a constant pixel comes out exactly 0.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-axis"


@triton.jit
def background_subtract_kernel(x_ptr, out_ptr, T, P, s_xt, s_xp, s_ot, s_op, BLOCK: tl.constexpr):
    cols = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    cmask = cols < P
    first = tl.load(x_ptr + cols * s_xp, mask=cmask, other=0.0).to(tl.float32)
    acc = tl.zeros([BLOCK, BLOCK], dtype=tl.float32)
    for start in range(0, T, BLOCK):
        rows = start + tl.arange(0, BLOCK).to(tl.int64)
        mask = (rows < T)[:, None] & cmask[None, :]
        x = tl.load(x_ptr + rows[:, None] * s_xt + cols[None, :] * s_xp, mask=mask, other=0.0).to(tl.float32)
        acc += tl.where(mask, x - first[None, :], 0.0)
    mean = tl.sum(acc, axis=1) / T
    for start in range(0, T, BLOCK):
        rows = start + tl.arange(0, BLOCK).to(tl.int64)
        mask = (rows < T)[:, None] & cmask[None, :]
        x = tl.load(x_ptr + rows[:, None] * s_xt + cols[None, :] * s_xp, mask=mask, other=0.0).to(tl.float32)
        y = (x - first[None, :]) - mean[None, :]
        tl.store(out_ptr + rows[:, None] * s_ot + cols[None, :] * s_op, y.to(out_ptr.dtype.element_ty), mask=mask)


def background_subtract(frames: torch.Tensor, BLOCK: int = 32) -> torch.Tensor:
    T, P = frames.shape
    out = torch.empty((T, P), dtype=frames.dtype, device=frames.device)
    if T == 0 or P == 0:
        return out
    background_subtract_kernel[(triton.cdiv(P, BLOCK),)](frames, out, T, P, frames.stride(0), frames.stride(1),
                                                        out.stride(0), out.stride(1), BLOCK=BLOCK)
    return out


def reference(frames: torch.Tensor) -> torch.Tensor:
    return frames - frames.mean(dim=0, keepdim=True)


spec = kcheck.Spec(
    name="temporal_background_subtract",
    kernel=background_subtract,
    reference=reference,
    inputs=[kcheck.Tensor("T", "P", name="frames")],
    dims={"T": kcheck.Dim(nominal=48, real=()), "P": kcheck.Dim(nominal=1024, real=())},
    reduce=["T"],
    configs=[{"BLOCK": 32}, {"BLOCK": 16}],
)
