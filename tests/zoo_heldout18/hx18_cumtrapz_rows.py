"""Cumulative trapezoidal integral along each row with uniform spacing dx (scipy's cumulative_trapezoid with
initial=0): y: (M, N), out: (M, N),

    out[m, 0] = 0,   out[m, i] = dx * sum_{j < i} (y[m, j] + y[m, j + 1]) / 2

One program per row, the whole row in one block (N <= 8192): the segment areas are formed from the
row and the row shifted by one, tl.cumsum runs over them in fp32, and the running sums are stored one place to the
right, with 0 in the first column. Output in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def cumtrapz_kernel(y_ptr, out_ptr, N, dx, s_ym, s_yn, s_om, s_on, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    j = tl.arange(0, BLOCK_N).to(tl.int64)
    seg_ok = j + 1 < N
    a = tl.load(y_ptr + row * s_ym + j * s_yn, mask=seg_ok, other=0.0).to(tl.float32)
    b = tl.load(y_ptr + row * s_ym + (j + 1) * s_yn, mask=seg_ok, other=0.0).to(tl.float32)
    area = tl.where(seg_ok, 0.5 * dx * (a + b), 0.0)
    run = tl.cumsum(area, axis=0)
    tl.store(out_ptr + row * s_om + (j + 1) * s_on, run.to(out_ptr.dtype.element_ty), mask=seg_ok)
    tl.store(out_ptr + row * s_om + j * s_on, tl.zeros((BLOCK_N,), dtype=tl.float32).to(out_ptr.dtype.element_ty),
             mask=(j == 0) & (N > 0))


def cumtrapz(y, dx=1.0):
    M, N = y.shape
    out = torch.empty((M, N), dtype=y.dtype, device=y.device)
    if M == 0 or N == 0:
        return out
    cumtrapz_kernel[(M,)](y, out, N, dx, y.stride(0), y.stride(1), out.stride(0), out.stride(1),
                          BLOCK_N=N)
    return out


def reference(y, dx=1.0):
    area = 0.5 * dx * (y[:, :-1] + y[:, 1:])
    return torch.cat([torch.zeros_like(y[:, :1]), torch.cumsum(area, dim=-1)], dim=-1)


BUG_CLASS = "kernel-raises"

spec = kcheck.Spec(
    name="hx18_cumtrapz_rows",
    kernel=cumtrapz,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="y")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=256, max=8192, real=(37, 2880))},
    params={"dx": [1.0, 0.01]},
    reduce=["N"],
)
