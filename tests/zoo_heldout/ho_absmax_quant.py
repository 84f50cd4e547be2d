"""Per-row absmax scaling (the first step of per-token int8/fp8 quantization): y[m] = x[m] * (127 / max|x[m]|).

The grid is (rows, chunks of BLOCK columns): each program folds its chunk's absolute maximum into a per-row fp32
scratch value with an atomic max, reads the row maximum back and scales its chunk. Output in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "race"
GPU_ONLY = False

QMAX = 127.0


@triton.jit
def _absmax_scale_kernel(x_ptr, y_ptr, amax_ptr, N, stride_xm, stride_xn, stride_ym, stride_yn, qmax,
                         BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * stride_xm + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
    tl.atomic_max(amax_ptr + row, tl.max(tl.abs(x), axis=0))
    amax = tl.load(amax_ptr + row)
    scale = qmax / tl.maximum(amax, 1e-12)
    tl.store(y_ptr + row * stride_ym + cols * stride_yn, (x * scale).to(y_ptr.dtype.element_ty), mask=mask)


def absmax_scale(x: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return y
    amax = torch.zeros(M, dtype=torch.float32, device=x.device)
    _absmax_scale_kernel[(M, triton.cdiv(N, BLOCK))](x, y, amax, N, x.stride(0), x.stride(1), y.stride(0),
                                                     y.stride(1), QMAX, BLOCK=BLOCK)
    return y


def reference(x: torch.Tensor) -> torch.Tensor:
    if x.shape[-1] == 0:
        return x.clone()
    return x * (QMAX / x.abs().amax(dim=-1, keepdim=True).clamp_min(1e-12))


spec = kcheck.Spec(
    name="ho_absmax_quant",
    kernel=absmax_scale,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=512, real=(2880,))},
    patterns=["randn", "zeros", "ones", "eye", "arange", "large", "tiny", "constant", "large_mean"],
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)
