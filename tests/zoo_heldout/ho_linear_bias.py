"""Linear layer forward, y = x @ w + b, with x (M, K), w (K, N) and a per-output-feature bias b (N).

Tiled with tl.dot over BLOCK_M x BLOCK_N output tiles, an fp32 accumulator over BLOCK_K steps, masks on every
edge, int64 offsets and any strides; the output is in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "tail-tile-dropped"
GPU_ONLY = False


@triton.jit
def _linear_kernel(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K, stride_xm, stride_xk, stride_wk, stride_wn,
                   stride_ym, stride_yn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K).to(tl.int64)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    num_k = K // BLOCK_K
    for i in range(0, num_k):
        kk = i * BLOCK_K + rk
        a = tl.load(x_ptr + rm[:, None] * stride_xm + kk[None, :] * stride_xk,
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(w_ptr + kk[:, None] * stride_wk + rn[None, :] * stride_wn,
                    mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    bias = tl.load(b_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)
    acc += bias[None, :]
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(y_ptr + rm[:, None] * stride_ym + rn[None, :] * stride_yn, acc.to(y_ptr.dtype.element_ty), mask=mask)


def linear(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, BLOCK_M: int = 64, BLOCK_N: int = 64,
           BLOCK_K: int = 32) -> torch.Tensor:
    M, K = x.shape
    N = w.shape[1]
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return y
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    _linear_kernel[grid](x, w, b, y, M, N, K, x.stride(0), x.stride(1), w.stride(0), w.stride(1),
                         y.stride(0), y.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return y


spec = kcheck.Spec(
    name="ho_linear_bias",
    kernel=linear,
    reference=lambda x, w, b: x @ w + b,
    inputs=[kcheck.Tensor("M", "K"), kcheck.Tensor("K", "N"), kcheck.Tensor("N", pattern="randn")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=64, real=()),
          "K": kcheck.Dim(nominal=128, real=(2880,))},
    dtypes=["tf32", "bf16", "fp16"],
    reduce=["K"],
    configs=[{"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 64}],
)
