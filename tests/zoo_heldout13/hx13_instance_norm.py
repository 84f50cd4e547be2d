"""Instance normalization with a per-channel affine on [B, C, L] (style transfer, audio models): each (b, c) row is
normalized over L, y = (x - mean) / sqrt(var + eps) * w[c] + b[c].

BLOCK_R (b, c) rows per program, on grid axis 0. The statistics are gathered in one pass over BLOCK_L chunks as sums of
d and d^2 with d = x - x[row, 0] (a shift that keeps the sums small), in fp32.
"""

import torch
import triton
import triton.language as tl

import kcheck

EPS = 1e-5


@triton.jit
def instance_norm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, R, C, L, eps, stride_xb, stride_xc, stride_xl,
                         stride_yb, stride_yc, stride_yl, BLOCK_R: tl.constexpr, BLOCK_L: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R).to(tl.int64)
    row_mask = rows < R
    bi = rows // C
    ci = rows % C
    x_row = x_ptr + (bi * stride_xb + ci * stride_xc)[:, None]
    y_row = y_ptr + (bi * stride_yb + ci * stride_yc)[:, None]
    shift = 0.0
    s1 = tl.zeros([BLOCK_R, BLOCK_L], dtype=tl.float32)
    s2 = tl.zeros([BLOCK_R, BLOCK_L], dtype=tl.float32)
    for start in range(0, L, BLOCK_L):
        l = start + tl.arange(0, BLOCK_L).to(tl.int64)
        mask = row_mask[:, None] & (l < L)[None, :]
        x = tl.load(x_row + l[None, :] * stride_xl, mask=mask, other=0.0).to(tl.float32)
        d = tl.where(mask, x - shift, 0.0)
        s1 += d
        s2 += d * d
    mean_d = tl.sum(s1, axis=1) / L
    var = tl.sum(s2, axis=1) / L - mean_d * mean_d
    var = tl.where(var < 0.0, 0.0, var)
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + ci, mask=row_mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + ci, mask=row_mask, other=0.0).to(tl.float32)
    for start in range(0, L, BLOCK_L):
        l = start + tl.arange(0, BLOCK_L).to(tl.int64)
        mask = row_mask[:, None] & (l < L)[None, :]
        x = tl.load(x_row + l[None, :] * stride_xl, mask=mask, other=0.0).to(tl.float32)
        y = ((x - shift) - mean_d[:, None]) * (rstd * w)[:, None] + b[:, None]
        tl.store(y_row + l[None, :] * stride_yl, y.to(y_ptr.dtype.element_ty), mask=mask)


def instance_norm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, BLOCK_R: int = 16,
                  BLOCK_L: int = 128) -> torch.Tensor:
    B, C, L = x.shape
    y = torch.empty((B, C, L), dtype=x.dtype, device=x.device)
    R = B * C
    if R == 0 or L == 0:
        return y
    instance_norm_kernel[(triton.cdiv(R, BLOCK_R),)](x, weight, bias, y, R, C, L, EPS, x.stride(0), x.stride(1),
                                                      x.stride(2), y.stride(0), y.stride(1), y.stride(2),
                                                      BLOCK_R=BLOCK_R, BLOCK_L=BLOCK_L)
    return y


def reference(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    mean = x.mean(dim=-1, keepdim=True)
    var = (x - mean).pow(2).mean(dim=-1, keepdim=True)
    return (x - mean) * torch.rsqrt(var + EPS) * weight[None, :, None] + bias[None, :, None]


BUG_CLASS = "cancellation"

spec = kcheck.Spec(
    name="hx13_instance_norm",
    kernel=instance_norm,
    reference=reference,
    inputs=[kcheck.Tensor("B", "C", "L", name="x"), kcheck.Tensor("C", name="weight", pattern="randn"),
            kcheck.Tensor("C", name="bias", pattern="randn")],
    dims={"B": kcheck.Dim(nominal=2, max=16, real=()), "C": kcheck.Dim(nominal=8, max=256, real=()),
          "L": kcheck.Dim(nominal=512, max=8192, real=())},
    reduce=["L"],
    configs=[{"BLOCK_R": 16, "BLOCK_L": 128}, {"BLOCK_R": 4, "BLOCK_L": 256}],
)
