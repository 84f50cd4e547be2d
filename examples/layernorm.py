"""LayerNorm over the last dimension, with weight and bias: y = (x - mean) / sqrt(var + eps) * w + b.

Statistics are computed in fp32 in two passes (mean, then the mean of squared deviations), never as
E[x^2] - E[x]^2, which cancels catastrophically when the mean is large against the spread. Both passes work on
x - x[row, 0] (shifted data): the shift is exact in fp32 when the values are close together, so a large mean
(1e4 + randn) costs no precision and a constant row normalizes to exactly 0 (y = bias), where an fp32 mean of 1e4
alone would already be off by half an ulp (5e-4), amplified by 1/sqrt(var + eps). Rows that fit one block
(N <= BLOCK_N) are read once, several rows per program; longer rows loop over BLOCK_N-wide chunks (three reads).
Row offsets are int64 (M*N may pass 2**31).
"""

import torch
import triton
import triton.language as tl

import kcheck

EPS = 1e-5


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, M, N, eps,
                     stride_xm, stride_xn, stride_w, stride_b, stride_om, stride_on,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, ONE_PASS: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = (rows < M)[:, None]
    x_row = x_ptr + rows[:, None] * stride_xm
    o_row = out_ptr + rows[:, None] * stride_om
    shift = tl.load(x_row, mask=row_mask, other=0.0).to(tl.float32)  # x[row, 0], shape [BLOCK_M, 1]
    if ONE_PASS:
        cols = tl.arange(0, BLOCK_N).to(tl.int64)
        col_mask = cols < N
        mask = row_mask & col_mask[None, :]
        x = tl.where(mask, tl.load(x_row + cols[None, :] * stride_xn, mask=mask, other=0.0).to(tl.float32) - shift, 0.0)
        mean = tl.sum(x, axis=1) / N
        d = tl.where(mask, x - mean[:, None], 0.0)
        var = tl.sum(d * d, axis=1) / N
        rstd = 1.0 / tl.sqrt(var + eps)
        w = tl.load(w_ptr + cols * stride_w, mask=col_mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + cols * stride_b, mask=col_mask, other=0.0).to(tl.float32)
        y = d * rstd[:, None] * w[None, :] + b[None, :]
        tl.store(o_row + cols[None, :] * stride_on, y.to(out_ptr.dtype.element_ty), mask=mask)
    else:
        acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
            mask = row_mask & (cols < N)[None, :]
            x = tl.load(x_row + cols[None, :] * stride_xn, mask=mask, other=0.0).to(tl.float32)
            acc += tl.where(mask, x - shift, 0.0)
        mean = tl.sum(acc, axis=1) / N
        acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
            mask = row_mask & (cols < N)[None, :]
            x = tl.load(x_row + cols[None, :] * stride_xn, mask=mask, other=0.0).to(tl.float32)
            d = tl.where(mask, (x - shift) - mean[:, None], 0.0)
            acc += d * d
        var = tl.sum(acc, axis=1) / N
        rstd = 1.0 / tl.sqrt(var + eps)
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
            col_mask = cols < N
            mask = row_mask & col_mask[None, :]
            x = tl.load(x_row + cols[None, :] * stride_xn, mask=mask, other=0.0).to(tl.float32)
            w = tl.load(w_ptr + cols * stride_w, mask=col_mask, other=0.0).to(tl.float32)
            b = tl.load(b_ptr + cols * stride_b, mask=col_mask, other=0.0).to(tl.float32)
            y = ((x - shift) - mean[:, None]) * rstd[:, None] * w[None, :] + b[None, :]
            tl.store(o_row + cols[None, :] * stride_on, y.to(out_ptr.dtype.element_ty), mask=mask)


def layernorm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, BLOCK_N: int = 4096,
              TILE: int = 4096) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    one_pass = N <= BLOCK_N
    block_n = triton.next_power_of_2(N) if one_pass else BLOCK_N
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    layernorm_kernel[(triton.cdiv(M, block_m),)](
        x, weight, bias, out, M, N, EPS,
        x.stride(0), x.stride(1), weight.stride(0), bias.stride(0), out.stride(0), out.stride(1),
        BLOCK_M=block_m, BLOCK_N=block_n, ONE_PASS=one_pass)
    return out


def reference(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), weight, bias, eps=EPS)


spec = kcheck.Spec(
    name="layernorm",
    kernel=layernorm,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("N", pattern="randn"), kcheck.Tensor("N", pattern="randn")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024)},
    reduce=["N"],
    configs=[{"BLOCK_N": 4096}, {"BLOCK_N": 256}],
)
