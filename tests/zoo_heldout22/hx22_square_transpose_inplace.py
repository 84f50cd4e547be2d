"""In-place transpose of a square matrix (e.g. turning a row-major weight into its column-major twin without a
second buffer).

The matrix is cut into BLOCK x BLOCK tiles, one program per tile on a 1-D grid. A program on the diagonal
transposes its own tile; a program above the diagonal loads its tile and the mirror tile below the diagonal and
writes each, transposed, into the other's place; programs below the diagonal have nothing to do. Every program
loads all it needs before it stores. int64 offsets, strides honoured (a view of a larger buffer works).
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "race"


@triton.jit
def transpose_inplace_kernel(x_ptr, N, s0, s1, n_tiles, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    ti = pid // n_tiles
    tj = pid % n_tiles
    r = ti * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    c = tj * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = (r < N)[:, None] & (c < N)[None, :]
    upper = x_ptr + r[:, None] * s0 + c[None, :] * s1  # tile (ti, tj), element [i, j] at (r_i, c_j)
    lower = x_ptr + c[None, :] * s0 + r[:, None] * s1  # its mirror, element [i, j] at (c_j, r_i)
    a = tl.load(upper, mask=mask)
    b = tl.load(lower, mask=mask)
    tl.store(lower, a, mask=mask)
    tl.store(upper, b, mask=mask)


def transpose_inplace(x, BLOCK=32):
    N = x.shape[0]
    if N:
        n_tiles = triton.cdiv(N, BLOCK)
        transpose_inplace_kernel[(n_tiles * n_tiles,)](x, N, x.stride(0), x.stride(1), n_tiles, BLOCK=BLOCK)
    return x


def reference(x):
    return x.t().contiguous()


spec = kcheck.Spec(
    name="hx22_square_transpose_inplace",
    kernel=transpose_inplace,
    reference=reference,
    inputs=[kcheck.Tensor("N", "N", name="x", mutated=True)],
    dims={"N": kcheck.Dim(nominal=96, real=(1024,))},
    configs=[{"BLOCK": 32}, {"BLOCK": 16}],
)
