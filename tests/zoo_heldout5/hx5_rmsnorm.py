"""RMSNorm over the last dimension with a learned weight: y = x / sqrt(mean(x^2) + eps) * w.

Rows fit one block (N <= 16384, the row length rounded up to a power of two), several rows per program when they
are short; the mean square is taken in fp32 and the output written in the input dtype. int64 row offsets, any
strides.
"""

import torch
import triton
import triton.language as tl

import kcheck

EPS = 1e-8
TILE = 8192


@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, out_ptr, M, N, eps, stride_xm, stride_xn, stride_w, stride_om, stride_on,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    col_mask = cols < N
    mask = (rows < M)[:, None] & col_mask[None, :]
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xn, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols * stride_w, mask=col_mask, other=0.0).to(tl.float32)
    ms = tl.sum(x * x, axis=1) / N
    rstd = 1.0 / tl.sqrt(ms + eps)
    y = x * rstd[:, None] * w[None, :]
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :] * stride_on, y.to(out_ptr.dtype.element_ty),
             mask=mask)


def rmsnorm(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    block_n = triton.next_power_of_2(N)
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    rmsnorm_kernel[(triton.cdiv(M, block_m),)](x, weight, out, M, N, EPS, x.stride(0), x.stride(1),
                                              weight.stride(0), out.stride(0), out.stride(1),
                                              BLOCK_M=block_m, BLOCK_N=block_n)
    return out


def reference(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.rms_norm(x, (x.shape[-1],), weight, eps=1e-6)


spec = kcheck.Spec(
    name="hx5_rmsnorm",
    kernel=rmsnorm,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", name="weight", pattern="randn")],
    dims={"M": kcheck.Dim(nominal=256), "N": kcheck.Dim(nominal=2048, max=16384)},
    reduce=["N"],
)

BUG_CLASS = "wrong-constant"
