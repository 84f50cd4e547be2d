"""ALiBi attention bias (Press et al. 2022) added to raw attention scores, one slope per head:

    out[h, i, j] = scores[h, i, j] - slope[h] * (i - j)

Scores are (heads, queries, keys) with any strides. Programs tile (head, block of query rows) and loop over the
keys in BLOCK_S-wide chunks; the bias is computed in fp32 and the result stored in the scores' dtype."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def alibi_kernel(s_ptr, slope_ptr, out_ptr, L, S,
                 stride_sh, stride_sl, stride_ss, stride_oh, stride_ol,
                 BLOCK_L: tl.constexpr, BLOCK_S: tl.constexpr):
    h = tl.program_id(0)
    pid_l = tl.program_id(1)
    rows = (pid_l * BLOCK_L + tl.arange(0, BLOCK_L)).to(tl.int64)
    row_mask = rows < L
    slope = tl.load(slope_ptr + h).to(tl.float32)
    s_base = s_ptr + (h * stride_sh).to(tl.int64)
    o_base = out_ptr + (h * stride_oh).to(tl.int64)
    for start in range(0, S, BLOCK_S):
        cols = (start + tl.arange(0, BLOCK_S)).to(tl.int64)
        mask = row_mask[:, None] & (cols < S)[None, :]
        s = tl.load(s_base + rows[:, None] * stride_sl + cols[None, :] * stride_ss, mask=mask, other=0.0)
        dist = (rows[:, None] - cols[None, :]).to(tl.float32)
        y = s.to(tl.float32) - slope * dist
        tl.store(o_base + rows[:, None] * stride_ol + cols[None, :], y.to(out_ptr.dtype.element_ty), mask=mask)


def alibi_scores(scores, slopes, BLOCK_L=16, BLOCK_S=64):
    H, L, S = scores.shape
    out = torch.empty((H, L, S), dtype=scores.dtype, device=scores.device)
    if out.numel() == 0:
        return out
    grid = (H, triton.cdiv(L, BLOCK_L))
    alibi_kernel[grid](scores, slopes, out, L, S,
                       scores.stride(0), scores.stride(1), scores.stride(2), out.stride(0), out.stride(1),
                       BLOCK_L=BLOCK_L, BLOCK_S=BLOCK_S)
    return out


def reference(scores, slopes):
    _H, L, S = scores.shape
    i = torch.arange(L, dtype=scores.dtype)[:, None]
    j = torch.arange(S, dtype=scores.dtype)[None, :]
    return scores - slopes[:, None, None] * (i - j)[None]


def _slopes(ctx):
    # the geometric sequence of the paper, 2**(-8 * (h + 1) / H)
    H = ctx.dims["H"]
    return torch.pow(2.0, -8.0 * torch.arange(1, H + 1, dtype=torch.float32) / max(H, 1)).to(ctx.dtype).to(ctx.device)


spec = kcheck.Spec(
    name="hx7_alibi_scores",
    kernel=alibi_scores,
    reference=reference,
    inputs=[kcheck.Tensor("H", "L", "S", name="scores"), kcheck.Custom(_slopes, name="slopes", dims=("H",))],
    dims={"H": kcheck.Dim(nominal=8), "L": kcheck.Dim(nominal=64), "S": kcheck.Dim(nominal=128)},
    configs=[{"BLOCK_L": 16, "BLOCK_S": 64}, {"BLOCK_L": 32, "BLOCK_S": 32}],
)

BUG_CLASS = "int32-overflow"
