"""Per-row rescaling of attention scores or activations by a per-row factor (temperature, token weight):
y[m, n] = x[m, n] * scale[m]. One program per row, looping over the row in BLOCK_N chunks, fp32 math."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def row_rescale_kernel(x_ptr, s_ptr, out_ptr, N, stride_xm, stride_xn, stride_om, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    s = tl.load(s_ptr + row).to(tl.float32)
    x_row = x_ptr + row * stride_xm
    o_row = out_ptr + row * stride_om
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < N
        x = tl.load(x_row + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
        tl.store(o_row + cols, (x * s).to(out_ptr.dtype.element_ty), mask=mask)


def row_rescale(x, scale, BLOCK_N=1024):
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M and N:
        row_rescale_kernel[(M,)](x, scale.contiguous(), out, N, x.stride(0), x.stride(1), out.stride(0),
                                 BLOCK_N=BLOCK_N)
    return out


spec = kcheck.Spec(
    name="hx2_row_rescale",
    kernel=row_rescale,
    reference=lambda x, s: x * s[:, None],
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("M", pattern="randn")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=512)},
    configs=[{"BLOCK_N": 1024}, {"BLOCK_N": 128}],
)

BUG_CLASS = "int32-overflow"
