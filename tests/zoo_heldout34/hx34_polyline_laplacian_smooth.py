"""One in-place step of Laplacian smoothing of open polylines (GPS tracks, contour lines, CNC tool paths):

    x[m, i] += lam * ((x[m, i - 1] + x[m, i + 1]) / 2 - x[m, i])    for 0 < i < N - 1,

the two end points fixed. x is [M, N]: M coordinate rows (x, y, ... of several tracks), N points each. Every point is
updated from its neighbours' values before the step, so the launcher snapshots the track first and the kernel reads
the snapshot and writes x. 2-D tiles of BLOCK_M rows by BLOCK_N points, fp32 arithmetic.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "race"


@triton.jit
def laplacian_smooth_kernel(src_ptr, x_ptr, M, N, lam, s_sm, s_sn, s_xm, s_xn,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    rmask = (rows < M)[:, None]
    inner = rmask & ((cols > 0) & (cols < N - 1))[None, :]
    base = src_ptr + rows[:, None] * s_sm
    left = tl.load(base + (cols - 1)[None, :] * s_sn, mask=inner, other=0.0).to(tl.float32)
    mid = tl.load(base + cols[None, :] * s_sn, mask=inner, other=0.0).to(tl.float32)
    right = tl.load(base + (cols + 1)[None, :] * s_sn, mask=inner, other=0.0).to(tl.float32)
    new = mid + lam * (0.5 * (left + right) - mid)
    tl.store(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, new.to(x_ptr.dtype.element_ty), mask=inner)


def laplacian_smooth_(x: torch.Tensor, lam: float = 0.5, BLOCK_M: int = 8, BLOCK_N: int = 64) -> torch.Tensor:
    M, N = x.shape
    if M == 0 or N < 3:
        return x
    src = x
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    laplacian_smooth_kernel[grid](src, x, M, N, lam, src.stride(0), src.stride(1), x.stride(0), x.stride(1),
                                  BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return x


def reference(x: torch.Tensor, lam: float = 0.5) -> torch.Tensor:
    y = x.clone()
    if x.shape[1] >= 3:
        mid = x[:, 1:-1]
        y[:, 1:-1] = mid + lam * (0.5 * (x[:, :-2] + x[:, 2:]) - mid)
    return y


spec = kcheck.Spec(
    name="polyline_laplacian_smooth",
    kernel=laplacian_smooth_,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x", mutated=True)],
    dims={"M": kcheck.Dim(nominal=6, real=()), "N": kcheck.Dim(nominal=1000, real=(), large=False)},
    params={"lam": [0.5, 0.25]},
    configs=[{"BLOCK_M": 8, "BLOCK_N": 64}, {"BLOCK_M": 2, "BLOCK_N": 256}],
    properties=[kcheck.props.linear()],
)
