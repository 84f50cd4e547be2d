"""Binary cross-entropy with logits, averaged over each row (multi-label classification, one row per sample):

loss[i] = mean_j (1 - t) * x - logsigmoid(x), logsigmoid(x) = min(x, 0) - log(1 + exp(-|x|))

the numerically stable form of -(t log sigmoid(x) + (1 - t) log(1 - sigmoid(x))), written as torch writes it.
Targets are probabilities in [0, 1]. One program per row, BLOCK_N-wide chunks, fp32 accumulation."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def bce_logits_kernel(x_ptr, t_ptr, out_ptr, N, stride_x, stride_t, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < N
        x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
        t = tl.load(t_ptr + row * stride_t + cols, mask=mask, other=0.0).to(tl.float32)
        term = (1.0 - t) * x - (tl.minimum(x, 0.0) - tl.log(1.0 + tl.exp(-tl.abs(x))))
        acc += tl.where(mask, term, 0.0)
    loss = tl.sum(acc, axis=0) / N
    tl.store(out_ptr + row, loss.to(out_ptr.dtype.element_ty))


def bce_logits(x, target, BLOCK_N=512):
    M, N = x.shape
    out = torch.empty(M, dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    x = x if x.stride(1) == 1 else x.contiguous()
    target = target if target.stride(1) == 1 else target.contiguous()
    bce_logits_kernel[(M,)](x, target, out, N, x.stride(0), target.stride(0),
                            BLOCK_N=min(BLOCK_N, triton.next_power_of_2(N)))
    return out


def reference(x, target):
    return torch.nn.functional.binary_cross_entropy_with_logits(x, target, reduction="none").mean(-1)


def _targets(ctx):
    return ctx.rand(ctx.dims["M"], ctx.dims["N"]).to(ctx.dtype)


spec = kcheck.Spec(
    name="hx7_bce_logits_ok",
    kernel=bce_logits,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="logits"), kcheck.Custom(_targets, name="target", dims=("M", "N"))],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1024, min=1)},
    reduce=["N"],
    configs=[{"BLOCK_N": 512}, {"BLOCK_N": 64}],
)

BUG_CLASS = None
