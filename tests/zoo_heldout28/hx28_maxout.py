"""Maxout units (Goodfellow et al.): the N features of each row are split into N / K consecutive groups of K
pieces, and each output is the maximum of its group,

    y[m, c] = max_{k < K} x[m, c * K + k]

One program per (row, block of BLOCK_C groups) loads a [BLOCK_C, BLOCK_K] tile (BLOCK_K the next power of two of
K, the extra pieces masked to -inf) and reduces it with a maximum that propagates NaN, as torch's amax does.
Strides honoured, int64 offsets. N is a multiple of 12, so every K in {2, 3, 4} divides it.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "kernel-raises"


@triton.jit
def _max_nan(a, b):
    return tl.maximum(a, b, propagate_nan=tl.PropagateNan.ALL)


@triton.jit
def maxout_kernel(x_ptr, y_ptr, C, K, s_xm, s_xn, s_ym, s_yc, BLOCK_C: tl.constexpr, BLOCK_K: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    groups = tl.program_id(1).to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C).to(tl.int64)
    pieces = tl.arange(0, BLOCK_K).to(tl.int64)
    gm = groups < C
    mask = gm[:, None] & (pieces < K)[None, :]
    cols = groups[:, None] * K + pieces[None, :]
    x = tl.load(x_ptr + row * s_xm + cols * s_xn, mask=mask, other=-float("inf")).to(tl.float32)
    y = tl.reduce(x, 1, _max_nan)
    tl.store(y_ptr + row * s_ym + groups * s_yc, y.to(y_ptr.dtype.element_ty), mask=gm)


def maxout(x: torch.Tensor, K: int = 4, BLOCK_C: int = 64) -> torch.Tensor:
    M, N = x.shape
    C = N // K
    y = torch.empty((M, C), dtype=x.dtype, device=x.device)
    if M == 0 or C == 0:
        return y
    block_k = K
    maxout_kernel[(M, triton.cdiv(C, BLOCK_C))](x, y, C, K, x.stride(0), x.stride(1), y.stride(0), y.stride(1),
                                                BLOCK_C=BLOCK_C, BLOCK_K=block_k)
    return y


def reference(x: torch.Tensor, K: int = 4) -> torch.Tensor:
    M, N = x.shape
    return x.reshape(M, N // K, K).amax(-1)


spec = kcheck.Spec(
    name="maxout",
    kernel=maxout,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x")],
    dims={"M": kcheck.Dim(nominal=48), "N": kcheck.Dim(nominal=384, multiple_of=12)},
    params={"K": [4, 3, 2]},
    configs=[{"BLOCK_C": 64}, {"BLOCK_C": 16}],
)
