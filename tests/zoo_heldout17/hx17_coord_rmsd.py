"""Root-mean-square deviation between paired molecular conformations (molecular dynamics / docking analysis,
structures already superposed).

x, y [M, N]: M pairs of conformations with their coordinates flattened; out[m] = sqrt(mean_n (x[m, n] - y[m, n])^2).
One program per pair, looping over the coordinates in chunks of BLOCK_N with a per-lane fp32 accumulator reduced
at the end; row offsets in int64.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "low-precision-accumulation"


@triton.jit
def rmsd_kernel(x_ptr, y_ptr, out_ptr, N, stride_xm, stride_xn, stride_ym, stride_yn, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros([BLOCK_N], dtype=x_ptr.dtype.element_ty)
    for n0 in range(0, N, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N)
        mask = cols < N
        x = tl.load(x_ptr + row * stride_xm + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
        y = tl.load(y_ptr + row * stride_ym + cols * stride_yn, mask=mask, other=0.0).to(tl.float32)
        d = x - y
        acc += (d * d).to(acc.dtype)
    rmsd = tl.sqrt(tl.sum(acc, axis=0) / N)
    tl.store(out_ptr + row, rmsd.to(out_ptr.dtype.element_ty))


def coord_rmsd(x, y, BLOCK_N=128):
    M, N = x.shape
    out = torch.empty((M,), dtype=x.dtype, device=x.device)
    if M:
        rmsd_kernel[(M,)](x, y, out, N, x.stride(0), x.stride(1), y.stride(0), y.stride(1), BLOCK_N=BLOCK_N)
    return out


def reference(x, y):
    return (x - y).pow(2).mean(-1).sqrt()


spec = kcheck.Spec(
    name="hx17_coord_rmsd",
    kernel=coord_rmsd,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("M", "N", name="y")],
    dims={"M": kcheck.Dim(nominal=16), "N": kcheck.Dim(nominal=2048, min=1)},
    reduce=["N"],
    configs=[{"BLOCK_N": 128}, {"BLOCK_N": 256}],
)
