"""Pre-emphasis filter for batches of audio frames (speech front ends before MFCC / filterbanks).

y[m, 0] = x[m, 0] and y[m, t] = x[m, t] - coef * x[m, t - 1]: a first-order high-pass per row. 2-D grid: one
program per (row, block of BLOCK samples); computed in fp32.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "int32-overflow"


@triton.jit
def preemphasis_kernel(x_ptr, y_ptr, N, stride_xm, stride_ym, coef, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    t = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = t < N
    x_row = x_ptr + row * stride_xm
    cur = tl.load(x_row + t, mask=mask, other=0.0).to(tl.float32)
    prev = tl.load(x_row + t - 1, mask=mask & (t > 0), other=0.0).to(tl.float32)
    y = cur - coef * prev
    tl.store(y_ptr + row * stride_ym + t, y.to(y_ptr.dtype.element_ty), mask=mask)


def preemphasis(x, coef=0.97, BLOCK=256):
    x = x.contiguous()
    M, N = x.shape
    y = torch.empty_like(x)
    if M and N:
        preemphasis_kernel[(M, triton.cdiv(N, BLOCK))](x, y, N, x.stride(0), y.stride(0), coef, BLOCK=BLOCK)
    return y


def reference(x, coef=0.97):
    y = x.clone()
    y[:, 1:] = x[:, 1:] - coef * x[:, :-1]
    return y


spec = kcheck.Spec(
    name="hx17_preemphasis",
    kernel=preemphasis,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=16), "N": kcheck.Dim(nominal=1024)},
    params={"coef": [0.97, 0.5]},
    configs=[{"BLOCK": 256}, {"BLOCK": 64}],
)
