"""Statistics pooling (x-vector speaker embeddings): per utterance and feature, the mean and the standard deviation
over time, mean[b, f] = E_t x and std[b, f] = sqrt(E_t (x - mean)^2). One program per (utterance, feature block),
two passes over T in BLOCK_T chunks (max |x|, then the sum of x and the sum of squares of x scaled by max |x| so
that tiny and huge features neither underflow nor overflow), fp32 math, two outputs in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def stats_pool_kernel(x_ptr, mean_ptr, std_ptr, T, F, stride_xb, stride_xt, stride_xf, stride_ob,
                      BLOCK_T: tl.constexpr, BLOCK_F: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    f = tl.program_id(1).to(tl.int64) * BLOCK_F + tl.arange(0, BLOCK_F)
    f_ok = f < F
    base = x_ptr + b * stride_xb + f[None, :] * stride_xf
    amax = tl.zeros([BLOCK_T, BLOCK_F], dtype=tl.float32)
    for t0 in range(0, T, BLOCK_T):
        t = t0 + tl.arange(0, BLOCK_T)
        x = tl.load(base + t[:, None] * stride_xt, mask=(t < T)[:, None] & f_ok[None, :], other=0.0)
        amax = tl.maximum(amax, tl.abs(x.to(tl.float32)), propagate_nan=tl.PropagateNan.ALL)
    scale = tl.max(amax, axis=0)
    scale = tl.where(scale == 0.0, 1.0, scale)
    s1 = tl.zeros([BLOCK_T, BLOCK_F], dtype=tl.float32)
    s2 = tl.zeros([BLOCK_T, BLOCK_F], dtype=tl.float32)
    for t0 in range(0, T, BLOCK_T):
        t = t0 + tl.arange(0, BLOCK_T)
        m = (t < T)[:, None] & f_ok[None, :]
        x = tl.load(base + t[:, None] * stride_xt, mask=m, other=0.0).to(tl.float32)
        s1 += x
        u = tl.where(m, x / scale[None, :], 0.0)
        s2 += u * u
    mean = tl.sum(s1, axis=0) / T
    mu = mean / scale
    var = tl.maximum(tl.sum(s2, axis=0) / T - mu * mu, 0.0, propagate_nan=tl.PropagateNan.ALL)
    std = scale * tl.sqrt(var)
    tl.store(mean_ptr + b * stride_ob + f, mean.to(mean_ptr.dtype.element_ty), mask=f_ok)
    tl.store(std_ptr + b * stride_ob + f, std.to(std_ptr.dtype.element_ty), mask=f_ok)


def stats_pooling(x: torch.Tensor, BLOCK_T: int = 32, BLOCK_F: int = 32) -> tuple[torch.Tensor, torch.Tensor]:
    B, T, F = x.shape
    mean = torch.empty((B, F), dtype=x.dtype, device=x.device)
    std = torch.empty((B, F), dtype=x.dtype, device=x.device)
    if B == 0 or F == 0:
        return mean, std
    grid = (B, triton.cdiv(F, BLOCK_F))
    stats_pool_kernel[grid](x, mean, std, T, F, x.stride(0), x.stride(1), x.stride(2), mean.stride(0),
                            BLOCK_T=BLOCK_T, BLOCK_F=BLOCK_F)
    return mean, std


spec = kcheck.Spec(
    name="hx9_stats_pooling",
    kernel=stats_pooling,
    reference=lambda x: (x.mean(1), x.std(1, correction=0)),
    inputs=[kcheck.Tensor("B", "T", "F")],
    dims={"B": kcheck.Dim(nominal=8), "T": kcheck.Dim(nominal=256, min=1), "F": kcheck.Dim(nominal=64)},
    reduce=["T"],
    configs=[{"BLOCK_T": 32, "BLOCK_F": 32}, {"BLOCK_T": 8, "BLOCK_F": 64}],
)

BUG_CLASS = 'cancellation'  # the planted class (from the README's table), for benchmarks/zoo.py
