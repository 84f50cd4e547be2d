"""Logit adjustment by a log item prior (recommender popularity debiasing / long-tail classification).

logits [B, I] and item prior probabilities [I]: out[b, i] = logits[b, i] - tau * log(prior[i]). 2-D tiles of
BLOCK_B x BLOCK_I; the prior is read once per tile column; tau is a mode.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-axis"


@triton.jit
def prior_correction_kernel(z_ptr, prior_ptr, out_ptr, B, I, stride_zb, stride_zi, stride_ob, stride_oi, tau,
                            BLOCK_B: tl.constexpr, BLOCK_I: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_B + tl.arange(0, BLOCK_B)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_I + tl.arange(0, BLOCK_I)
    rmask = rows < B
    cmask = cols < I
    mask = rmask[:, None] & cmask[None, :]
    z = tl.load(z_ptr + rows[:, None] * stride_zb + cols[None, :] * stride_zi, mask=mask, other=0.0).to(tl.float32)
    prior = tl.load(prior_ptr + rows, mask=rmask, other=1.0).to(tl.float32)
    out = z - tau * tl.log(prior)[:, None]
    tl.store(out_ptr + rows[:, None] * stride_ob + cols[None, :] * stride_oi, out.to(out_ptr.dtype.element_ty),
             mask=mask)


def prior_correction(logits, prior, tau=1.0, BLOCK_B=32, BLOCK_I=64):
    B, I = logits.shape
    prior = prior.contiguous()
    out = torch.empty((B, I), dtype=logits.dtype, device=logits.device)
    if B and I:
        grid = (triton.cdiv(B, BLOCK_B), triton.cdiv(I, BLOCK_I))
        prior_correction_kernel[grid](logits, prior, out, B, I, logits.stride(0), logits.stride(1), out.stride(0),
                                      out.stride(1), tau, BLOCK_B=BLOCK_B, BLOCK_I=BLOCK_I)
    return out


def make_prior(ctx):
    counts = ctx.rand(ctx.dims["I"], dtype=torch.float32) + 0.05
    return (counts / counts.sum().clamp_min(1e-6)).to(ctx.dtype)


def reference(logits, prior, tau=1.0):
    return logits - tau * torch.log(prior)[None, :]


spec = kcheck.Spec(
    name="hx17_logit_prior_correction",
    kernel=prior_correction,
    reference=reference,
    inputs=[kcheck.Tensor("B", "I", name="logits"), kcheck.Custom(make_prior, name="prior", dims=("I",))],
    dims={"B": kcheck.Dim(nominal=64), "I": kcheck.Dim(nominal=256)},
    params={"tau": [1.0, 0.5]},
    configs=[{"BLOCK_B": 32, "BLOCK_I": 64}, {"BLOCK_B": 16, "BLOCK_I": 128}],
)
