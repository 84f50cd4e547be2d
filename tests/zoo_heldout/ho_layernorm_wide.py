"""LayerNorm with weight and bias over the last dimension: y = (x - mean) / sqrt(var + eps) * w + b.

Rows that fit one block are normalized from registers, several rows per program; wider rows (vocabulary-sized
hidden states) loop over BLOCK_N-wide chunks in three passes (mean, variance of the deviations, write).
Statistics in fp32 on data shifted by each row's first element (exact for nearly constant rows), int64 row
offsets, any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-axis"
GPU_ONLY = False

EPS = 1e-5


@triton.jit
def _ln_fwd(x_ptr, w_ptr, b_ptr, y_ptr, M, N, eps, stride_xm, stride_xn, stride_ym, stride_yn,
            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, ONE_PASS: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    x_rows = x_ptr + rows[:, None] * stride_xm
    y_rows = y_ptr + rows[:, None] * stride_ym
    shift = tl.load(x_rows, mask=row_mask[:, None], other=0.0).to(tl.float32)
    if ONE_PASS:
        cols = tl.arange(0, BLOCK_N)
        col_mask = cols < N
        mask = row_mask[:, None] & col_mask[None, :]
        x = tl.where(mask, tl.load(x_rows + cols[None, :] * stride_xn, mask=mask, other=0.0).to(tl.float32) - shift,
                     0.0)
        mean = tl.sum(x, axis=1) / N
        d = tl.where(mask, x - mean[:, None], 0.0)
        rstd = tl.rsqrt(tl.sum(d * d, axis=1) / N + eps)
        w = tl.load(w_ptr + cols, mask=col_mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + cols, mask=col_mask, other=0.0).to(tl.float32)
        y = d * rstd[:, None] * w[None, :] + b[None, :]
        tl.store(y_rows + cols[None, :] * stride_yn, y.to(y_ptr.dtype.element_ty), mask=mask)
    else:
        acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            mask = row_mask[:, None] & (cols < N)[None, :]
            x = tl.load(x_rows + cols[None, :] * stride_xn, mask=mask, other=0.0).to(tl.float32)
            acc += tl.where(mask, x - shift, 0.0)
        mean = tl.sum(acc, axis=1) / N
        acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            mask = row_mask[:, None] & (cols < N)[None, :]
            x = tl.load(x_rows + cols[None, :] * stride_xn, mask=mask, other=0.0).to(tl.float32)
            d = tl.where(mask, (x - shift) - mean[:, None], 0.0)
            acc += d * d
        rstd = tl.rsqrt(tl.sum(acc, axis=1) / N + eps)
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            mask = row_mask[:, None] & (cols < N)[None, :]
            x = tl.load(x_rows + cols[None, :] * stride_xn, mask=mask, other=0.0).to(tl.float32)
            w = tl.load(w_ptr + rows, mask=row_mask, other=0.0).to(tl.float32)
            b = tl.load(b_ptr + rows, mask=row_mask, other=0.0).to(tl.float32)
            y = ((x - shift) - mean[:, None]) * rstd[:, None] * w[:, None] + b[:, None]
            tl.store(y_rows + cols[None, :] * stride_yn, y.to(y_ptr.dtype.element_ty), mask=mask)


def layernorm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, BLOCK_N: int = 2048,
              TILE: int = 4096) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return y
    one_pass = N <= BLOCK_N
    block_n = triton.next_power_of_2(N) if one_pass else BLOCK_N
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    _ln_fwd[(triton.cdiv(M, block_m),)](x, weight, bias, y, M, N, EPS,
                                        x.stride(0), x.stride(1), y.stride(0), y.stride(1),
                                        BLOCK_M=block_m, BLOCK_N=block_n, ONE_PASS=one_pass)
    return y


def reference(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), weight, bias, eps=EPS)


spec = kcheck.Spec(
    name="ho_layernorm_wide",
    kernel=layernorm,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("N", pattern="randn"), kcheck.Tensor("N", pattern="randn")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=512, real=(2880, 8192))},
    reduce=["N"],
    configs=[{"BLOCK_N": 2048}, {"BLOCK_N": 256}],
)
