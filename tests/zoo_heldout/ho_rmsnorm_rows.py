"""RMSNorm over the last dimension with a learned gain: y = x / sqrt(mean(x^2) + eps) * w.

One program per row, the whole row in one block (N up to 8192), statistics in fp32, output in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "index-transposition"
GPU_ONLY = False

EPS = 1e-6


@triton.jit
def _rmsnorm_fwd(x_ptr, w_ptr, y_ptr, N, eps, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0).to(tl.float32)
    mean_sq = tl.sum(x * x, axis=0) / N
    rstd = tl.rsqrt(mean_sq + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    y = x * rstd * w
    tl.store(y_ptr + row * N + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def rmsnorm(x: torch.Tensor, weight: torch.Tensor, eps: float = EPS) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return y
    assert N <= 8192, "rows longer than 8192 are not supported"
    _rmsnorm_fwd[(M,)](x, weight, y, N, eps, BLOCK_N=triton.next_power_of_2(N))
    return y


def reference(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS) * weight


spec = kcheck.Spec(
    name="ho_rmsnorm_rows",
    kernel=rmsnorm,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("N", pattern="randn")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=256, real=(2880,), max=8192, large=False)},
    reduce=["N"],
)
