"""Logistic-regression scoring: p[m] = sigmoid(x[m, :] . w + bias), for a batch of feature rows.

BLOCK_M rows per program loop over BLOCK_K-wide feature chunks with an fp32 accumulator; the sigmoid is the
overflow-free form (exp of a non-positive argument only). Row offsets are int64.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = 'low-precision-accumulation'


@triton.jit
def logreg_kernel(x_ptr, w_ptr, out_ptr, M, K, bias, s_xm, s_xk, s_w,
                  BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    acc = tl.zeros([BLOCK_M, BLOCK_K], dtype=x_ptr.dtype.element_ty)
    for start in range(0, K, BLOCK_K):
        cols = start + tl.arange(0, BLOCK_K).to(tl.int64)
        col_mask = cols < K
        mask = row_mask[:, None] & col_mask[None, :]
        x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xk, mask=mask, other=0.0)
        w = tl.load(w_ptr + cols * s_w, mask=col_mask, other=0.0)
        acc += x * w[None, :]
    z = tl.sum(acc.to(tl.float32), axis=1) + bias
    ez = tl.exp(-tl.abs(z))
    p = tl.where(z >= 0, 1.0 / (1.0 + ez), ez / (1.0 + ez))
    tl.store(out_ptr + rows, p.to(out_ptr.dtype.element_ty), mask=row_mask)


def logistic_predict(x: torch.Tensor, w: torch.Tensor, bias: float, BLOCK_K: int = 128) -> torch.Tensor:
    M, K = x.shape
    out = torch.empty((M,), dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    block_m = 16
    logreg_kernel[(triton.cdiv(M, block_m),)](x, w, out, M, K, bias, x.stride(0), x.stride(1), w.stride(0),
                                              BLOCK_M=block_m, BLOCK_K=BLOCK_K)
    return out


def reference(x: torch.Tensor, w: torch.Tensor, bias: float) -> torch.Tensor:
    return torch.sigmoid(x @ w + bias)


def weights(ctx):
    K = ctx.dims["K"]
    return (ctx.randn(K, dtype=torch.float32) / max(K, 1) ** 0.5).to(ctx.dtype)


spec = kcheck.Spec(
    name="hx27_logistic_regression_predict",
    kernel=logistic_predict,
    reference=reference,
    inputs=[kcheck.Tensor("M", "K", name="x"), kcheck.Custom(weights, name="w", dims=("K",)),
            kcheck.Scalar(0.1, name="bias")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "K": kcheck.Dim(nominal=2048, real=())},
    reduce=["K"],
    configs=[{"BLOCK_K": 128}, {"BLOCK_K": 32}],
)
