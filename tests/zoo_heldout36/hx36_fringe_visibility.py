"""Optics: fringe visibility of interferograms, V = (I_max - I_min) / (I_max + I_min) per row, the intensity the
square of the sampled field amplitude (I = a^2); a dark row (I_max + I_min = 0) has visibility 0. One program per
BLOCK_M rows, running max and min of the intensity over BLOCK_N chunks in fp32; strides honoured. NaN samples are
skipped by the max and min (GPU semantics of tl.maximum/tl.minimum)."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "division-by-zero"


@triton.jit
def visibility_kernel(a_ptr, out_ptr, M, N, s_am, s_an, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    i_max = tl.full([BLOCK_M], -float("inf"), dtype=tl.float32)
    i_min = tl.full([BLOCK_M], float("inf"), dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]
        a = tl.load(a_ptr + rows[:, None] * s_am + cols[None, :] * s_an, mask=mask, other=0.0).to(tl.float32)
        inten = a * a
        i_max = tl.maximum(i_max, tl.max(tl.where(mask, inten, -float("inf")), axis=1))
        i_min = tl.minimum(i_min, tl.min(tl.where(mask, inten, float("inf")), axis=1))
    den = i_max + i_min
    vis = (i_max - i_min) / den
    tl.store(out_ptr + rows, vis.to(out_ptr.dtype.element_ty), mask=row_mask)


def fringe_visibility(a: torch.Tensor, BLOCK_M: int = 16, BLOCK_N: int = 64) -> torch.Tensor:
    M, N = a.shape
    out = torch.empty((M,), dtype=a.dtype, device=a.device)
    if M == 0:
        return out
    visibility_kernel[(triton.cdiv(M, BLOCK_M),)](a, out, M, N, a.stride(0), a.stride(1), BLOCK_M=BLOCK_M,
                                                  BLOCK_N=BLOCK_N)
    return out


def reference(a: torch.Tensor) -> torch.Tensor:
    inten = a * a
    i_max = inten.nan_to_num(nan=-float("inf"), posinf=float("inf")).amax(-1) if a.shape[-1] else \
        inten.new_full(a.shape[:-1], -float("inf"))
    i_min = inten.nan_to_num(nan=float("inf"), posinf=float("inf")).amin(-1) if a.shape[-1] else \
        inten.new_full(a.shape[:-1], float("inf"))
    den = i_max + i_min
    return torch.where(den > 0, (i_max - i_min) / den, torch.zeros_like(den))


spec = kcheck.Spec(
    name="hx36_fringe_visibility",
    kernel=fringe_visibility,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="amplitude")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=640, max=8192)},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 64}, {"BLOCK_M": 4, "BLOCK_N": 256}],
)
