"""Bug class: catastrophic cancellation (variance as E[x^2] - E[x]^2 in fp32).

The LayerNorm of ``examples/layernorm.py`` (one pass, fp32 statistics, weight and bias) with the one-pass textbook
variance: var = mean(x * x) - mean(x) ** 2. In exact arithmetic it is the variance; in fp32 it subtracts two numbers
of size mean^2 to get one of size spread^2. On randn rows (mean 0, spread 1) nothing cancels and the result matches
the reference to a few ulp, so a casual test passes. On activations with a large mean against their spread
(kcheck's ``large_mean`` pattern, 1e4 + randn: mean(x*x) ~ 1e8, where fp32 values are 8 apart) the computed
variance is off by several units, or negative (then sqrt gives NaN): the output is wrong everywhere in those rows.
The fix is the example's: subtract the mean first (two passes, or Welford), on data shifted by x[row, 0].
"""

import torch
import triton
import triton.language as tl

import kcheck

EPS = 1e-5


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, M, N, eps,
                     stride_xm, stride_xn, stride_w, stride_b, stride_om, stride_on,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    col_mask = cols < N
    mask = (rows < M)[:, None] & col_mask[None, :]
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xn, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=1) / N
    var = tl.sum(x * x, axis=1) / N - mean * mean  # BUG: cancels when |mean| >> spread; use mean((x - mean)**2)
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols * stride_w, mask=col_mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols * stride_b, mask=col_mask, other=0.0).to(tl.float32)
    y = (x - mean[:, None]) * rstd[:, None] * w[None, :] + b[None, :]
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :] * stride_on, y.to(out_ptr.dtype.element_ty),
             mask=mask)


def layernorm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, TILE: int = 4096) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    block_n = triton.next_power_of_2(N)
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    layernorm_kernel[(triton.cdiv(M, block_m),)](
        x, weight, bias, out, M, N, EPS,
        x.stride(0), x.stride(1), weight.stride(0), bias.stride(0), out.stride(0), out.stride(1),
        BLOCK_M=block_m, BLOCK_N=block_n)
    return out


def reference(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), weight, bias, eps=EPS)


spec = kcheck.Spec(
    name="layernorm_naive_variance",
    kernel=layernorm,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("N", pattern="randn"), kcheck.Tensor("N", pattern="randn")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024)},
    dtypes=["fp32"],
    reduce=["N"],
)

BUG_CLASS = "cancellation"
