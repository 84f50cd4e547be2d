"""Three-point Hanning filter along depth, in place (oceanography: smoothing CTD profiles before differentiating).

x is [Z, P]: Z depth levels (rows) of P casts (columns), filtered in place. Every interior level becomes
x[k] = 0.25 x[k-1] + 0.5 x[k] + 0.25 x[k+1] (from the unfiltered values); the top and bottom levels are kept.
The launcher snapshots the profiles first, so every tile of BLOCK_Z levels reads its neighbours' unfiltered
values while other tiles overwrite theirs. fp32 arithmetic, any strides, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "race"


@triton.jit
def hanning_depth_kernel(src_ptr, x_ptr, Z, P, s_sz, s_sp, s_xz, s_xp, BLOCK_Z: tl.constexpr, BLOCK_P: tl.constexpr):
    k = tl.program_id(0).to(tl.int64) * BLOCK_Z + tl.arange(0, BLOCK_Z)
    p = tl.program_id(1).to(tl.int64) * BLOCK_P + tl.arange(0, BLOCK_P)
    mask = ((k >= 1) & (k < Z - 1))[:, None] & (p < P)[None, :]
    col = p[None, :] * s_sp
    up = tl.load(src_ptr + (k - 1)[:, None] * s_sz + col, mask=mask, other=0.0).to(tl.float32)
    mid = tl.load(src_ptr + k[:, None] * s_sz + col, mask=mask, other=0.0).to(tl.float32)
    down = tl.load(src_ptr + (k + 1)[:, None] * s_sz + col, mask=mask, other=0.0).to(tl.float32)
    y = 0.25 * up + 0.5 * mid + 0.25 * down
    tl.store(x_ptr + k[:, None] * s_xz + p[None, :] * s_xp, y.to(x_ptr.dtype.element_ty), mask=mask)


def depth_hanning_inplace(x: torch.Tensor, BLOCK_Z: int = 32, BLOCK_P: int = 32) -> torch.Tensor:
    Z, P = x.shape
    if Z < 3 or P == 0:
        return x
    src = x
    grid = (triton.cdiv(Z, BLOCK_Z), triton.cdiv(P, BLOCK_P))
    hanning_depth_kernel[grid](src, x, Z, P, src.stride(0), src.stride(1), x.stride(0), x.stride(1),
                               BLOCK_Z=BLOCK_Z, BLOCK_P=BLOCK_P)
    return x


def reference(x: torch.Tensor) -> torch.Tensor:
    y = x.clone()
    if x.shape[0] >= 3:
        y[1:-1] = 0.25 * x[:-2] + 0.5 * x[1:-1] + 0.25 * x[2:]
    return y


spec = kcheck.Spec(
    name="hx40_depth_hanning_inplace",
    kernel=depth_hanning_inplace,
    reference=reference,
    inputs=[kcheck.Tensor("Z", "P", mutated=True, name="profiles")],
    dims={"Z": kcheck.Dim(nominal=500), "P": kcheck.Dim(nominal=40)},
    configs=[{"BLOCK_Z": 32, "BLOCK_P": 32}, {"BLOCK_Z": 128, "BLOCK_P": 16}],
    properties=[kcheck.props.linear()],
)
