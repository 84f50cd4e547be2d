"""Teager-Kaiser energy operator along each row of a signal batch: psi[n] = x[n]^2 - x[n-1] * x[n+1], with the
signal taken as zero outside the row (psi[0] = x[0]^2 - 0, psi[N-1] = x[N-1]^2 - 0).

The difference is evaluated as x[n] * (x[n] - x[n-1]) + x[n-1] * (x[n] - x[n+1]), which is the same polynomial but
keeps its precision for signals riding on a large offset (the two products of the plain form are both ~offset^2
and cancel). Tiles of BLOCK_M rows by BLOCK_N columns read the centre samples and their left and right
neighbours through the row and column strides; fp32 arithmetic; int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "off-by-one-mask"


@triton.jit
def teager_kernel(x_ptr, out_ptr, M, N, s_xm, s_xn, s_om, s_on, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    row_mask = (rows < M)[:, None]
    mask = row_mask & (cols < N)[None, :]
    left_mask = row_mask & ((cols >= 1) & (cols < N))[None, :]
    right_mask = row_mask & (cols + 1 <= N)[None, :]
    base = x_ptr + rows[:, None] * s_xm
    x = tl.load(base + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    xl = tl.load(base + (cols - 1)[None, :] * s_xn, mask=left_mask, other=0.0).to(tl.float32)
    xr = tl.load(base + (cols + 1)[None, :] * s_xn, mask=right_mask, other=0.0).to(tl.float32)
    psi = x * (x - xl) + xl * (x - xr)
    tl.store(out_ptr + rows[:, None] * s_om + cols[None, :] * s_on, psi.to(out_ptr.dtype.element_ty), mask=mask)


def teager_energy(x: torch.Tensor, BLOCK_M: int = 8, BLOCK_N: int = 128) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    teager_kernel[grid](x, out, M, N, x.stride(0), x.stride(1), out.stride(0), out.stride(1),
                        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    pad = torch.nn.functional.pad(x, (1, 1))
    left, right = pad[:, :-2], pad[:, 2:]
    return x * (x - left) + left * (x - right)  # x^2 - left * right, in the kernel's form (same inf/NaN cases)


spec = kcheck.Spec(
    name="teager_energy",
    kernel=teager_energy,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="signal")],
    dims={"M": kcheck.Dim(nominal=32), "N": kcheck.Dim(nominal=500)},
    configs=[{"BLOCK_M": 8, "BLOCK_N": 128}, {"BLOCK_M": 4, "BLOCK_N": 32}],
)
