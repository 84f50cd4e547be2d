"""RankNet pairwise loss per query (Burges et al.): for every pair of documents (i, j) of a list with relevance
rel[i] > rel[j], the logistic loss of ranking i above j,

    loss = mean over such pairs of log(1 + exp(s[j] - s[i]))

(0 for a list without such a pair). Scores are [B, L] in any floating dtype, relevance grades are integers.

One program per list walks the [L, L] pair matrix in BLOCK x BLOCK tiles; the softplus is evaluated in its stable
form max(z, 0) + log(1 + exp(-|z|)), with the small-argument series for log(1 + u); sums are fp32.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "exp-overflow"


@triton.jit
def ranknet_kernel(s_ptr, rel_ptr, out_ptr, L, s_sb, s_sl, s_rb, s_rl, BLOCK: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    total = tl.zeros([BLOCK, BLOCK], dtype=tl.float32)
    count = tl.zeros([BLOCK, BLOCK], dtype=tl.int32)
    for i0 in range(0, L, BLOCK):
        i = i0 + tl.arange(0, BLOCK).to(tl.int64)
        ok_i = i < L
        s_i = tl.load(s_ptr + b * s_sb + i * s_sl, mask=ok_i, other=0.0).to(tl.float32)
        r_i = tl.load(rel_ptr + b * s_rb + i * s_rl, mask=ok_i, other=0)
        for j0 in range(0, L, BLOCK):
            j = j0 + tl.arange(0, BLOCK).to(tl.int64)
            ok_j = j < L
            s_j = tl.load(s_ptr + b * s_sb + j * s_sl, mask=ok_j, other=0.0).to(tl.float32)
            r_j = tl.load(rel_ptr + b * s_rb + j * s_rl, mask=ok_j, other=0)
            pair = ok_i[:, None] & ok_j[None, :] & (r_i[:, None] > r_j[None, :])
            z = s_j[None, :] - s_i[:, None]
            u = tl.exp(-tl.abs(z))
            log1p_u = tl.where(u < 1e-4, u * (1.0 - 0.5 * u), tl.log(1.0 + u))
            loss = tl.log(1.0 + tl.exp(z))
            total += tl.where(pair, loss, 0.0)
            count += pair.to(tl.int32)
    n = tl.sum(tl.sum(count, axis=1), axis=0)
    mean = tl.sum(tl.sum(total, axis=1), axis=0) / tl.maximum(n, 1).to(tl.float32)
    tl.store(out_ptr + b, mean.to(out_ptr.dtype.element_ty))


def ranknet_loss(scores: torch.Tensor, rel: torch.Tensor, BLOCK: int = 64) -> torch.Tensor:
    B, L = scores.shape
    out = torch.empty((B,), dtype=scores.dtype, device=scores.device)
    if B == 0:
        return out
    if L == 0:
        return out.zero_()
    ranknet_kernel[(B,)](scores, rel, out, L, scores.stride(0), scores.stride(1), rel.stride(0), rel.stride(1),
                         BLOCK=BLOCK)
    return out


def reference(scores: torch.Tensor, rel: torch.Tensor) -> torch.Tensor:
    z = scores[:, None, :] - scores[:, :, None]  # z[b, i, j] = s_j - s_i
    pair = rel[:, :, None] > rel[:, None, :]
    loss = torch.where(pair, torch.nn.functional.softplus(z), torch.zeros_like(z))
    return loss.sum((1, 2)) / pair.sum((1, 2)).clamp(min=1).to(scores.dtype)


spec = kcheck.Spec(
    name="hx26_ranknet_pair_loss",
    kernel=ranknet_loss,
    reference=reference,
    inputs=[kcheck.Tensor("B", "L", name="scores"), kcheck.Index("B", "L", high=5, name="relevance")],
    dims={"B": kcheck.Dim(nominal=12), "L": kcheck.Dim(nominal=100, max=1024)},
    reduce=["L"],
    configs=[{"BLOCK": 64}, {"BLOCK": 32}],
)
