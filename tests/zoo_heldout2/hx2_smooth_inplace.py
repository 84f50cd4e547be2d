"""In-place 3-point smoothing of each row (a denoising sweep over sequences), zero boundary:
x[m, n] <- (x[m, n-1] + x[m, n] + x[m, n+1]) / 3. Updated in place to save the second buffer: a 2-D grid of
(row, column block) programs, each loading its block and its two neighbours before storing."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def smooth3_kernel(x_ptr, N, stride_m, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    pid = tl.program_id(1).to(tl.int64)
    cols = pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    p = x_ptr + row * stride_m + cols
    inside = cols < N
    c = tl.load(p, mask=inside, other=0.0).to(tl.float32)
    left = tl.load(p - 1, mask=inside & (cols >= 1), other=0.0).to(tl.float32)
    right = tl.load(p + 1, mask=(cols + 1) < N, other=0.0).to(tl.float32)
    y = (left + c + right) * (1.0 / 3.0)
    tl.store(p, y.to(x_ptr.dtype.element_ty), mask=inside)


def smooth3_(x, BLOCK=128):
    M, N = x.shape
    assert x.stride(1) == 1, "rows must be contiguous"
    if M and N:
        smooth3_kernel[(M, triton.cdiv(N, BLOCK))](x, N, x.stride(0), BLOCK=BLOCK)
    return x


def reference(x):
    p = torch.nn.functional.pad(x, (1, 1))
    return (p[:, :-2] + p[:, 1:-1] + p[:, 2:]) / 3


spec = kcheck.Spec(
    name="hx2_smooth_inplace",
    kernel=smooth3_,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", mutated=True)],
    dims={"M": kcheck.Dim(nominal=16, real=()), "N": kcheck.Dim(nominal=512)},
    configs=[{"BLOCK": 128}, {"BLOCK": 1024}],
)

BUG_CLASS = "race"
