"""Fused bias + ReLU epilogue: y = max(x + b, 0) for x (M, N) and a per-column bias b (N), over 2-D tiles of
BLOCK_M x BLOCK_N, any strides, int64 offsets, output in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "off-by-one-mask"
GPU_ONLY = False


@triton.jit
def _bias_relu_kernel(x_ptr, b_ptr, y_ptr, M, N, stride_xm, stride_xn, stride_ym, stride_yn,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = rn <= N
    mask = (rm[:, None] < M) & col_mask[None, :]
    x = tl.load(x_ptr + rm[:, None] * stride_xm + rn[None, :] * stride_xn, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + rn, mask=col_mask, other=0.0).to(tl.float32)
    y = tl.maximum(x + b[None, :], 0.0)
    tl.store(y_ptr + rm[:, None] * stride_ym + rn[None, :] * stride_yn, y.to(y_ptr.dtype.element_ty), mask=mask)


def bias_relu(x: torch.Tensor, b: torch.Tensor, BLOCK_M: int = 32, BLOCK_N: int = 64) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return y
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    _bias_relu_kernel[grid](x, b, y, M, N, x.stride(0), x.stride(1), y.stride(0), y.stride(1),
                            BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return y


spec = kcheck.Spec(
    name="ho_bias_relu",
    kernel=bias_relu,
    reference=lambda x, b: torch.relu(x + b),
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("N", pattern="randn")],
    dims={"M": kcheck.Dim(nominal=128, real=(2880,)), "N": kcheck.Dim(nominal=256)},
    configs=[{"BLOCK_M": 32, "BLOCK_N": 64}, {"BLOCK_M": 16, "BLOCK_N": 128}],
)
