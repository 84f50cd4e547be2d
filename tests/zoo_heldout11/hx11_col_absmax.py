"""Per-column absolute maximum of an activation matrix (calibration statistics for per-channel int8 quantization):
amax[n] = max_m |x[m, n]|, returned in fp32.

The rows are split across programs (ROWS rows each) so that a tall matrix fills the GPU: each program reduces its
[ROWS, BLOCK_N] slab in fp32 and merges into the zero-initialized fp32 output with an atomic max (the values are
>= 0, so the float atomic max is exact). NaN in a column is carried to its result. Flat 1-D grid, int64 offsets.

Planted bug (missing-atomic): each row-slab program stores its partial maximum with a plain tl.store, so the program
that writes last wins instead of the maximum over all slabs.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def col_absmax_kernel(x_ptr, out_ptr, M, N, sxm, sxn, n_nblocks,
                      ROWS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    cols = (pid % n_nblocks) * BLOCK_N + tl.arange(0, BLOCK_N)
    row0 = (pid // n_nblocks) * ROWS
    cmask = cols < N
    best = tl.zeros([BLOCK_N], dtype=tl.float32)
    seen_nan = tl.zeros([BLOCK_N], dtype=tl.int32)
    for r in range(0, ROWS, BLOCK_M):
        rows = row0 + r + tl.arange(0, BLOCK_M)
        mask = (rows < M)[:, None] & cmask[None, :]
        a = tl.abs(tl.load(x_ptr + rows[:, None] * sxm + cols[None, :] * sxn, mask=mask, other=0.0).to(tl.float32))
        seen_nan = tl.maximum(seen_nan, tl.max((a != a).to(tl.int32), axis=0))
        best = tl.maximum(best, tl.max(a, axis=0))
    best = tl.where(seen_nan > 0, float("nan"), best)
    tl.store(out_ptr + cols, best, mask=cmask)


def col_absmax(x, ROWS=64, BLOCK_M=16, BLOCK_N=64):
    M, N = x.shape
    out = torch.zeros(N, dtype=torch.float32, device=x.device)
    if M and N:
        n_nblocks = triton.cdiv(N, BLOCK_N)
        col_absmax_kernel[(n_nblocks * triton.cdiv(M, ROWS),)](
            x, out, M, N, x.stride(0), x.stride(1), n_nblocks, ROWS=ROWS, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(x):
    if x.shape[0] == 0:
        return torch.zeros(x.shape[1], dtype=x.dtype)
    return x.abs().amax(dim=0)


spec = kcheck.Spec(
    name="hx11_col_absmax",
    kernel=col_absmax,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=300), "N": kcheck.Dim(nominal=96)},
    output_dtypes=[torch.float32],
    output_shapes=[("N",)],
    configs=[{"ROWS": 64, "BLOCK_M": 16, "BLOCK_N": 64}, {"ROWS": 128, "BLOCK_M": 32, "BLOCK_N": 32}],
)

BUG_CLASS = "missing-atomic"  # plain store of per-slab partial max
