"""Fused residual add + RMSNorm, as in a pre-norm transformer block: h = x + residual, y = h / sqrt(mean(h^2) + eps)
* weight. Returns (y, h): the normalized activations and the updated residual stream. One program per row; rows
longer than BLOCK_N are walked in chunks (two passes: the sum of squares, then the write). Statistics in fp32."""

import torch
import triton
import triton.language as tl

import kcheck

EPS = 1e-6


@triton.jit
def add_rmsnorm_kernel(x_ptr, r_ptr, w_ptr, y_ptr, h_ptr, N, eps,
                       stride_x, stride_r, stride_y, stride_h,
                       BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * stride_x
    r_row = r_ptr + row * stride_r
    y_row = y_ptr + row * stride_y
    h_row = h_ptr + row * stride_h
    sq = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < N
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        r = tl.load(r_row + cols, mask=mask, other=0.0).to(tl.float32)
        h = x + r
        tl.store(h_row + cols, h.to(h_ptr.dtype.element_ty), mask=mask)
        sq += h * h
    rstd = 1.0 / tl.sqrt(tl.sum(sq, axis=0) / N + eps)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < N
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        r = tl.load(r_row + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        y = (x + r) * rstd * w
        tl.store(y_row + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def add_rmsnorm(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor,
                BLOCK_N: int = 1024) -> tuple[torch.Tensor, torch.Tensor]:
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    h = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return y, h
    weight = weight.contiguous()
    assert x.stride(1) == 1 and residual.stride(1) == 1
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    add_rmsnorm_kernel[(M,)](x, residual, weight, y, h, N, EPS,
                             x.stride(0), residual.stride(0), y.stride(0), h.stride(0), BLOCK_N=block_n)
    return y, h


def reference(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = x + residual
    y = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + EPS) * weight
    return y, h


spec = kcheck.Spec(
    name="hx3_add_rmsnorm",
    kernel=add_rmsnorm,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("M", "N", name="residual"),
            kcheck.Tensor("N", name="weight", pattern="randn")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=2048)},
    reduce=["N"],
    configs=[{"BLOCK_N": 1024}, {"BLOCK_N": 4096}],
)

BUG_CLASS = "int32-overflow"
