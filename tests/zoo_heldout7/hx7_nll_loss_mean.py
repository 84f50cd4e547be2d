"""Negative log-likelihood loss with mean reduction over a batch of tokens, as torch.nn.functional.nll_loss:

    loss = -(1 / T) * sum_t logp[t, target[t]]

logp is (T, V) log-probabilities (any row stride); targets are class ids. Each program gathers BLOCK_T target
log-probabilities, sums them in fp32 and writes its share of the mean to an fp32 scalar; the launcher returns
the scalar in logp's dtype."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def nll_mean_kernel(logp_ptr, tgt_ptr, out_ptr, T, stride_t, inv_t, BLOCK_T: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_T + tl.arange(0, BLOCK_T)
    mask = offs < T
    tgt = tl.load(tgt_ptr + offs, mask=mask, other=0)
    lp = tl.load(logp_ptr + offs * stride_t + tgt, mask=mask, other=0.0).to(tl.float32)
    partial = -tl.sum(lp, axis=0) * inv_t
    tl.store(out_ptr, partial)


def nll_loss_mean(logp, target, BLOCK_T=1024):
    T, _V = logp.shape
    acc = torch.zeros((), dtype=torch.float32, device=logp.device)
    if T == 0:
        return torch.full((), float("nan"), dtype=logp.dtype, device=logp.device)
    if logp.stride(1) != 1:
        logp = logp.contiguous()
    grid = (triton.cdiv(T, BLOCK_T),)
    nll_mean_kernel[grid](logp, target, acc, T, logp.stride(0), 1.0 / T, BLOCK_T=BLOCK_T)
    return acc.to(logp.dtype)


def reference(logp, target):
    return torch.nn.functional.nll_loss(logp, target, reduction="mean")


spec = kcheck.Spec(
    name="hx7_nll_loss_mean",
    kernel=nll_loss_mean,
    reference=reference,
    inputs=[kcheck.Tensor("T", "V", name="logp"), kcheck.Index("T", high="V", name="target")],
    dims={"T": kcheck.Dim(nominal=512), "V": kcheck.Dim(nominal=256, min=1)},
    reduce=["T"],
    configs=[{"BLOCK_T": 1024}, {"BLOCK_T": 128}],
)

BUG_CLASS = "missing-atomic"
