"""Per-token dequantization: y[m, n] = x[m, n] * scale[m], for activations x (M, N) and one fp32 scale per row.

One program per (row, BLOCK_N columns), with alignment hints on the row starts so loads vectorize; output in the
input dtype.
"""

# GPU only: what goes wrong depends on how the compiled code accesses memory; the CPU interpreter ignores it.

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "misaligned-access"
GPU_ONLY = True


@triton.jit
def _dequant_kernel(x_ptr, s_ptr, y_ptr, N, stride_xm, stride_ym, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    cols = tl.max_contiguous(tl.multiple_of(cols, BLOCK_N), BLOCK_N)
    x_start = tl.multiple_of(row * stride_xm, 16)
    y_start = tl.multiple_of(row * stride_ym, 16)
    mask = cols < N
    x = tl.load(x_ptr + x_start + cols, mask=mask, other=0.0).to(tl.float32)
    s = tl.load(s_ptr + row)
    tl.store(y_ptr + y_start + cols, (x * s).to(y_ptr.dtype.element_ty), mask=mask)


def dequant_rows(x: torch.Tensor, scale: torch.Tensor, BLOCK_N: int = 256) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return y
    if x.stride(1) != 1:
        x = x.contiguous()
    scale = scale.to(torch.float32).contiguous()
    _dequant_kernel[(M, triton.cdiv(N, BLOCK_N))](x, scale, y, N, x.stride(0), y.stride(0), BLOCK_N=BLOCK_N)
    return y


spec = kcheck.Spec(
    name="ho_dequant_rows",
    kernel=dequant_rows,
    reference=lambda x, scale: x * scale[:, None],
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("M", pattern="randn")],
    dims={"M": kcheck.Dim(nominal=128, real=()), "N": kcheck.Dim(nominal=512, large=False)},
    configs=[{"BLOCK_N": 256}, {"BLOCK_N": 128}],
)
