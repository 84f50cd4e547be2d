"""Linear layer with a fused epilogue, y = relu(x @ W^T + b), x (M, K), W (N, K) as nn.Linear stores it, b (N,).
Tiles of BLOCK_M x BLOCK_N with tl.dot over K in BLOCK_K chunks (masked tails), fp32 accumulator, output in the
input dtype. fp32 inputs multiply in TF32 on the GPU, hence the "tf32" precision."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def linear_bias_relu_kernel(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K, stride_xm, stride_xk, stride_wn, stride_wk,
                            stride_ym, stride_yn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                            BLOCK_K: tl.constexpr):
    rm = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        rk = k + tl.arange(0, BLOCK_K).to(tl.int64)
        x = tl.load(x_ptr + rm[:, None] * stride_xm + rk[None, :] * stride_xk,
                    mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        w = tl.load(w_ptr + rn[None, :] * stride_wn + rk[:, None] * stride_wk,
                    mask=(rn[None, :] < N) & (rk[:, None] < K), other=0.0)
        acc = tl.dot(x, w, acc)
    bias = tl.load(b_ptr + rm, mask=rm < M, other=0.0).to(tl.float32)
    y = tl.maximum(acc + bias[:, None], 0.0)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(y_ptr + rm[:, None] * stride_ym + rn[None, :] * stride_yn, y.to(y_ptr.dtype.element_ty), mask=mask)


def linear_bias_relu(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, BLOCK_M: int = 64,
                     BLOCK_N: int = 64, BLOCK_K: int = 32) -> torch.Tensor:
    M, K = x.shape
    N, _ = weight.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return y
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    linear_bias_relu_kernel[grid](x, weight, bias.contiguous(), y, M, N, K, x.stride(0), x.stride(1),
                                  weight.stride(0), weight.stride(1), y.stride(0), y.stride(1),
                                  BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return y


spec = kcheck.Spec(
    name="hx3_linear_bias_relu",
    kernel=linear_bias_relu,
    reference=lambda x, w, b: torch.relu(x @ w.T + b),
    inputs=[kcheck.Tensor("M", "K", name="x"), kcheck.Tensor("N", "K", name="weight"),
            kcheck.Tensor("N", name="bias", pattern="randn")],
    dims={"M": kcheck.Dim(nominal=256), "N": kcheck.Dim(nominal=512), "K": kcheck.Dim(nominal=256)},
    dtypes=["tf32", "bf16", "fp16"],
    reduce=["K"],
    configs=[{"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, {"BLOCK_M": 32, "BLOCK_N": 128, "BLOCK_K": 64}],
)

BUG_CLASS = "wrong-axis"
