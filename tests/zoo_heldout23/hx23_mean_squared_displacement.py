"""Mean squared displacement of each trajectory from its starting point (diffusion analysis):
msd[m] = mean_t (x[m, t] - x[m, 0])^2 over the T >= 1 samples of row m.

Each program takes BLOCK_M rows and walks them BLOCK_T samples at a time; differences are taken in fp32, each
chunk's sum of squares (tl.sum) is fp32 and added to an fp32 running total per row. Any strides; int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def msd_kernel(x_ptr, out_ptr, M, T, sxm, sxt, BLOCK_M: tl.constexpr, BLOCK_T: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    x_row = x_ptr + rows[:, None] * sxm
    x0 = tl.load(x_row, mask=row_mask[:, None], other=0.0)
    total = tl.zeros([BLOCK_M], dtype=tl.float32)
    for start in range(0, T, BLOCK_T):
        t = start + tl.arange(0, BLOCK_T).to(tl.int64)
        mask = row_mask[:, None] & (t < T)[None, :]
        x = tl.load(x_row + t[None, :] * sxt, mask=mask, other=0.0)
        d = tl.where(mask, x - x0, 0.0)
        total += tl.sum(d * d, axis=1)
    tl.store(out_ptr + rows, (total / T).to(out_ptr.dtype.element_ty), mask=row_mask)


def mean_squared_displacement(x: torch.Tensor, BLOCK_T: int = 1024, BLOCK_M: int = 2) -> torch.Tensor:
    M, T = x.shape
    out = torch.empty((M,), dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    msd_kernel[(triton.cdiv(M, BLOCK_M),)](x, out, M, T, x.stride(0), x.stride(1), BLOCK_M=BLOCK_M,
                                           BLOCK_T=BLOCK_T)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return ((x - x[:, :1]) ** 2).mean(-1)


BUG_CLASS = "low-precision-accumulation"

spec = kcheck.Spec(
    name="hx23_mean_squared_displacement",
    kernel=mean_squared_displacement,
    reference=reference,
    inputs=[kcheck.Tensor("M", "T", name="trajectories")],
    dims={"M": kcheck.Dim(nominal=32, real=()), "T": kcheck.Dim(nominal=2048, min=1, real=(37, 2880))},
    reduce=["T"],
    configs=[{"BLOCK_T": 1024, "BLOCK_M": 2}, {"BLOCK_T": 128, "BLOCK_M": 8}],
)
