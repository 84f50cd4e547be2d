"""In-place symmetrization of a square matrix, A <- (A + A^T) / 2 (covariance / Hessian estimates drift from
symmetry in low precision). A 2-D grid of BLOCK x BLOCK tiles; the program of tile (i, j) loads tile (i, j) and
the transposed tile (j, i), averages them, and writes its own tile."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def symmetrize_kernel(a_ptr, N, stride_r, stride_c, BLOCK: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    cols = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = (rows < N)[:, None] & (cols < N)[None, :]
    p_ij = a_ptr + rows[:, None] * stride_r + cols[None, :] * stride_c
    p_ji = a_ptr + cols[None, :] * stride_r + rows[:, None] * stride_c
    a_ij = tl.load(p_ij, mask=mask).to(tl.float32)
    a_ji = tl.load(p_ji, mask=mask).to(tl.float32)
    s = ((a_ij + a_ji) * 0.5).to(a_ptr.dtype.element_ty)
    tl.store(p_ij, s, mask=mask)


def symmetrize_(a: torch.Tensor, BLOCK: int = 32) -> torch.Tensor:
    N = a.shape[0]
    if N:
        g = triton.cdiv(N, BLOCK)
        symmetrize_kernel[(g, g)](a, N, a.stride(0), a.stride(1), BLOCK=BLOCK)
    return a


spec = kcheck.Spec(
    name="hx9_symmetrize_inplace",
    kernel=symmetrize_,
    reference=lambda a: (a + a.T) * 0.5,
    inputs=[kcheck.Tensor("N", "N", mutated=True)],
    dims={"N": kcheck.Dim(nominal=128)},
    configs=[{"BLOCK": 32}, {"BLOCK": 16}],
)

BUG_CLASS = 'race'  # the planted class (from the README's table), for benchmarks/zoo.py
