"""Renormalize router probabilities over the experts kept for each token (top-k routing): out[m, e] =
p[m, e] * keep[m, e] / sum_e(p[m, e] * keep[m, e]); a token that keeps no expert gets all-zero weights.
One program per token, the row in BLOCK_E chunks, fp32 sums, stored in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def masked_renorm_kernel(p_ptr, keep_ptr, out_ptr, E, stride_pm, stride_pe, stride_km, stride_ke, stride_om,
                         BLOCK_E: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros([BLOCK_E], dtype=tl.float32)
    for start in range(0, E, BLOCK_E):
        cols = start + tl.arange(0, BLOCK_E)
        mask = cols < E
        p = tl.load(p_ptr + row * stride_pm + cols * stride_pe, mask=mask, other=0.0).to(tl.float32)
        k = tl.load(keep_ptr + row * stride_km + cols * stride_ke, mask=mask, other=0).to(tl.int1)
        acc += tl.where(k, p, 0.0)
    total = tl.sum(acc, axis=0)
    inv = 1.0 / total
    for start in range(0, E, BLOCK_E):
        cols = start + tl.arange(0, BLOCK_E)
        mask = cols < E
        p = tl.load(p_ptr + row * stride_pm + cols * stride_pe, mask=mask, other=0.0).to(tl.float32)
        k = tl.load(keep_ptr + row * stride_km + cols * stride_ke, mask=mask, other=0).to(tl.int1)
        tl.store(out_ptr + row * stride_om + cols, (tl.where(k, p, 0.0) * inv).to(out_ptr.dtype.element_ty),
                 mask=mask)


def masked_renorm(p: torch.Tensor, keep: torch.Tensor, BLOCK_E: int = 64) -> torch.Tensor:
    M, E = p.shape
    out = torch.empty((M, E), dtype=p.dtype, device=p.device)
    if M == 0 or E == 0:
        return out
    block_e = min(BLOCK_E, triton.next_power_of_2(E))
    masked_renorm_kernel[(M,)](p, keep, out, E, p.stride(0), p.stride(1), keep.stride(0), keep.stride(1),
                               out.stride(0), BLOCK_E=block_e)
    return out


def reference(p: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
    kept = p * keep
    total = kept.sum(-1, keepdim=True)
    return torch.where(total > 0, kept / torch.where(total > 0, total, 1.0), 0.0)


def router_probs(ctx):
    # softmax over experts of random router logits: positive, rows sum to 1
    logits = ctx.randn(ctx.dims["M"], ctx.dims["E"], dtype=torch.float32)
    return torch.softmax(logits, -1).to(ctx.dtype)


spec = kcheck.Spec(
    name="hx8_masked_renorm",
    kernel=masked_renorm,
    reference=reference,
    inputs=[kcheck.Custom(router_probs, name="p", dims=("M", "E")),
            kcheck.Tensor("M", "E", name="keep", dtype=torch.bool, density=0.25)],
    dims={"M": kcheck.Dim(nominal=128), "E": kcheck.Dim(nominal=64)},
    reduce=["E"],
    configs=[{"BLOCK_E": 64}, {"BLOCK_E": 16}],
)

BUG_CLASS = "division-by-zero"
