"""RMSNorm with a learned gain, y = x / sqrt(mean(x^2) + eps) * w, for rows of any length: one program per row,
two passes over BLOCK_N-wide chunks (sum of squares in fp32, then the scaled write). Int64 row offsets, any
strides, output in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None
GPU_ONLY = False

EPS = 1e-6


@triton.jit
def _rmsnorm_kernel(x_ptr, w_ptr, y_ptr, N, eps, stride_xm, stride_xn, stride_w, stride_ym, stride_yn,
                    BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_xm
    y_row = y_ptr + row * stride_ym
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        x = tl.load(x_row + cols * stride_xn, mask=cols < N, other=0.0).to(tl.float32)
        acc += x * x
    rstd = tl.rsqrt(tl.sum(acc, axis=0) / N + eps)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = cols < N
        x = tl.load(x_row + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols * stride_w, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_row + cols * stride_yn, (x * rstd * w).to(y_ptr.dtype.element_ty), mask=mask)


def rmsnorm(x: torch.Tensor, weight: torch.Tensor, eps: float = EPS, BLOCK_N: int = 1024) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return y
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    _rmsnorm_kernel[(M,)](x, weight, y, N, eps, x.stride(0), x.stride(1), weight.stride(0), y.stride(0),
                          y.stride(1), BLOCK_N=block_n)
    return y


def reference(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS) * weight


spec = kcheck.Spec(
    name="ho_rmsnorm_ok",
    kernel=rmsnorm,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("N", pattern="randn")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=512, real=(2880,))},
    reduce=["N"],
    configs=[{"BLOCK_N": 1024}, {"BLOCK_N": 128}],
)
