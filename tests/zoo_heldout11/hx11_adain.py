"""Adaptive instance normalization (AdaIN, style transfer): every row of the content features (one (batch, channel)
pair, L spatial positions) is normalized to zero mean and unit variance and given the style's statistics:
y = (x - mean) / sqrt(var + eps) * style_std[row] + style_mean[row] (biased variance, as instance norm).

Statistics in fp32 in one pass (sum and sum of squares), then a second pass writes. Several rows per program for
short rows; int64 row offsets.

Planted bug (cancellation): the variance is E[x^2] - E[x]^2 in fp32; with a large mean against the spread (1e4 + randn)
the two terms are ~1e8 and their difference, the variance ~1, is lost to rounding (it can even come out negative).
"""

import torch
import triton
import triton.language as tl

import kcheck

EPS = 1e-5


@triton.jit
def adain_kernel(x_ptr, sm_ptr, ss_ptr, out_ptr, R, L, sxr, sxl, sor, sol, eps,
                 BLOCK_R: tl.constexpr, BLOCK_L: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)
    rmask = rows < R
    acc = tl.zeros([BLOCK_R, BLOCK_L], dtype=tl.float32)
    acc2 = tl.zeros([BLOCK_R, BLOCK_L], dtype=tl.float32)
    for start in range(0, L, BLOCK_L):
        cols = start + tl.arange(0, BLOCK_L)
        mask = rmask[:, None] & (cols < L)[None, :]
        x = tl.load(x_ptr + rows[:, None] * sxr + cols[None, :] * sxl, mask=mask, other=0.0).to(tl.float32)
        acc += x
        acc2 += x * x
    mean = tl.sum(acc, axis=1) / L
    var = tl.sum(acc2, axis=1) / L - mean * mean
    scale = tl.load(ss_ptr + rows, mask=rmask, other=0.0).to(tl.float32) / tl.sqrt(var + eps)
    bias = tl.load(sm_ptr + rows, mask=rmask, other=0.0).to(tl.float32)
    for start in range(0, L, BLOCK_L):
        cols = start + tl.arange(0, BLOCK_L)
        mask = rmask[:, None] & (cols < L)[None, :]
        x = tl.load(x_ptr + rows[:, None] * sxr + cols[None, :] * sxl, mask=mask, other=0.0).to(tl.float32)
        y = (x - mean[:, None]) * scale[:, None] + bias[:, None]
        tl.store(out_ptr + rows[:, None] * sor + cols[None, :] * sol, y.to(out_ptr.dtype.element_ty), mask=mask)


def adain(x, style_mean, style_std, BLOCK_L=256):
    R, L = x.shape
    out = torch.empty((R, L), dtype=x.dtype, device=x.device)
    if R == 0 or L == 0:
        return out
    block_r = max(1, min(8, 2048 // BLOCK_L))
    adain_kernel[(triton.cdiv(R, block_r),)](
        x, style_mean.contiguous(), style_std.contiguous(), out, R, L, x.stride(0), x.stride(1),
        out.stride(0), out.stride(1), EPS, BLOCK_R=block_r, BLOCK_L=BLOCK_L)
    return out


def reference(x, style_mean, style_std):
    mean = x.mean(-1, keepdim=True)
    var = x.var(-1, unbiased=False, keepdim=True)
    return (x - mean) / torch.sqrt(var + EPS) * style_std[:, None] + style_mean[:, None]


spec = kcheck.Spec(
    name="hx11_adain",
    kernel=adain,
    reference=reference,
    inputs=[kcheck.Tensor("R", "L", name="content"), kcheck.Tensor("R", name="style_mean", pattern="randn"),
            kcheck.Tensor("R", name="style_std", pattern="ones")],
    dims={"R": kcheck.Dim(nominal=64), "L": kcheck.Dim(nominal=1024)},
    reduce=["L"],
    configs=[{"BLOCK_L": 256}, {"BLOCK_L": 64}],
)

BUG_CLASS = "cancellation"  # one-pass variance E[x^2] - E[x]^2
