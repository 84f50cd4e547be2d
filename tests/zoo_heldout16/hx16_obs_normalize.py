"""Batch observation normalization for RL (the per-feature standardization of a rollout batch): for each feature
f, y[:, f] = (x[:, f] - mean_f) / sqrt(var_f + 1e-8), mean and (biased) variance over the B rows. Each program
owns BLOCK_F feature columns and walks the rows in BLOCK_B chunks: one pass gathers each column's sum and sum of
squares, a second writes the standardized values. fp32 arithmetic, output in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "cancellation"


@triton.jit
def obs_norm_kernel(x_ptr, y_ptr, B, F, sxb, sxf, syb, syf, eps, BLOCK_B: tl.constexpr, BLOCK_F: tl.constexpr):
    cols = tl.program_id(0).to(tl.int64) * BLOCK_F + tl.arange(0, BLOCK_F).to(tl.int64)
    cmask = cols < F
    s1 = tl.zeros([BLOCK_F], dtype=tl.float32)
    s2 = tl.zeros([BLOCK_F], dtype=tl.float32)
    for b0 in range(0, B, BLOCK_B):
        rows = b0 + tl.arange(0, BLOCK_B).to(tl.int64)
        m = (rows < B)[:, None] & cmask[None, :]
        x = tl.load(x_ptr + rows[:, None] * sxb + cols[None, :] * sxf, mask=m, other=0.0).to(tl.float32)
        s1 += tl.sum(x, axis=0)
        s2 += tl.sum(x * x, axis=0)
    mean = s1 / B
    rstd = 1.0 / tl.sqrt(s2 / B - mean * mean + eps)
    for b0 in range(0, B, BLOCK_B):
        rows = b0 + tl.arange(0, BLOCK_B).to(tl.int64)
        m = (rows < B)[:, None] & cmask[None, :]
        x = tl.load(x_ptr + rows[:, None] * sxb + cols[None, :] * sxf, mask=m, other=0.0).to(tl.float32)
        y = (x - mean[None, :]) * rstd[None, :]
        tl.store(y_ptr + rows[:, None] * syb + cols[None, :] * syf, y.to(y_ptr.dtype.element_ty), mask=m)


def obs_normalize(x: torch.Tensor, BLOCK_B: int = 32, BLOCK_F: int = 64) -> torch.Tensor:
    B, F = x.shape
    y = torch.empty((B, F), dtype=x.dtype, device=x.device)
    if B and F:
        obs_norm_kernel[(triton.cdiv(F, BLOCK_F),)](x, y, B, F, x.stride(0), x.stride(1), y.stride(0), y.stride(1),
                                                    1e-8, BLOCK_B=BLOCK_B, BLOCK_F=BLOCK_F)
    return y


def reference(x: torch.Tensor) -> torch.Tensor:
    return (x - x.mean(0)) / torch.sqrt(x.var(0, unbiased=False) + 1e-8)


spec = kcheck.Spec(
    name="hx16_obs_normalize",
    kernel=obs_normalize,
    reference=reference,
    inputs=[kcheck.Tensor("B", "F", name="obs")],
    dims={"B": kcheck.Dim(nominal=128), "F": kcheck.Dim(nominal=48)},
    reduce=["B"],
    configs=[{"BLOCK_B": 32, "BLOCK_F": 64}, {"BLOCK_B": 8, "BLOCK_F": 16}],
)
