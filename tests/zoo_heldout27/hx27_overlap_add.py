"""Windowed overlap-add synthesis (the last step of an inverse STFT / a phase vocoder):

y[f * hop + j] += frames[f, j] * window[j],   y has (F - 1) * hop + L samples

A 2-D grid of (frame, BLOCK samples of the frame); neighbouring frames overlap by L - hop samples, so the programs
accumulate into an fp32 buffer with atomic adds; the buffer is cast to the frames' dtype at the end.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = 'missing-atomic'


@triton.jit
def ola_kernel(frames_ptr, win_ptr, out_ptr, L, hop, s_ff, s_fl, s_w, BLOCK: tl.constexpr):
    f = tl.program_id(0).to(tl.int64)
    j = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = j < L
    x = tl.load(frames_ptr + f * s_ff + j * s_fl, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(win_ptr + j * s_w, mask=mask, other=0.0).to(tl.float32)
    pos = f * hop + j
    tl.store(out_ptr + pos, tl.load(out_ptr + pos, mask=mask, other=0.0) + x * w, mask=mask)


def overlap_add(frames: torch.Tensor, window: torch.Tensor, hop: int, BLOCK: int = 128) -> torch.Tensor:
    F, L = frames.shape
    T = (F - 1) * hop + L if F else 0
    acc = torch.zeros((T,), dtype=torch.float32, device=frames.device)
    if F and L:
        ola_kernel[(F, triton.cdiv(L, BLOCK))](frames, window, acc, L, hop, frames.stride(0), frames.stride(1),
                                              window.stride(0), BLOCK=BLOCK)
    return acc.to(frames.dtype)


def reference(frames: torch.Tensor, window: torch.Tensor, hop: int) -> torch.Tensor:
    F, L = frames.shape
    T = (F - 1) * hop + L if F else 0
    idx = (torch.arange(F)[:, None] * hop + torch.arange(L)[None, :]).reshape(-1)
    return torch.zeros((T,), dtype=frames.dtype).index_add_(0, idx, (frames * window).reshape(-1))


spec = kcheck.Spec(
    name="hx27_overlap_add",
    kernel=overlap_add,
    reference=reference,
    inputs=[kcheck.Tensor("F", "L", name="frames"), kcheck.Tensor("L", pattern="randn", name="window"),
            kcheck.Scalar(lambda d: max(1, d["L"] // 4), name="hop")],
    dims={"F": kcheck.Dim(nominal=24, real=()), "L": kcheck.Dim(nominal=256, real=())},
    configs=[{"BLOCK": 128}, {"BLOCK": 32}],
)
