"""Min-p sampling filter (Nguyen et al. 2024, in vLLM / llama.cpp samplers): from next-token logits, keep the tokens
whose probability is at least min_p times the top token's and renormalize over them:

    keep_j = p_j >= min_p * max_k p_k   <=>   x_j - max_k x_k >= log(min_p)
    out_j  = keep_j * exp(x_j - max) / sum_k keep_k * exp(x_k - max)

logits is [B, V] with vocabularies up to 128256 entries. Row-block kernel: BLOCK_B rows per program make three
sweeps over the vocabulary in BLOCK_V chunks: the row max (NaN-propagating, as torch's max), the sum over the kept
tokens, then the write. Computed in fp32, stored in the input dtype.
"""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None


@triton.jit
def min_p_kernel(x_ptr, out_ptr, B, V, log_min_p, stride_xb, stride_xv, BLOCK_B: tl.constexpr,
                 BLOCK_V: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_B + tl.arange(0, BLOCK_B)
    r_ok = rows < B
    x_row = x_ptr + rows[:, None] * stride_xb
    o_row = out_ptr + rows[:, None] * V
    mx = tl.full([BLOCK_B], float("-inf"), tl.float32)
    n_nan = tl.zeros([BLOCK_B], tl.int32)
    for v0 in range(0, V, BLOCK_V):
        cols = v0 + tl.arange(0, BLOCK_V)
        mask = r_ok[:, None] & (cols < V)[None, :]
        x = tl.load(x_row + cols[None, :] * stride_xv, mask=mask, other=float("-inf")).to(tl.float32)
        mx = tl.maximum(mx, tl.max(x, axis=1))
        n_nan += tl.sum((x != x).to(tl.int32), axis=1)
    mx = tl.where(n_nan > 0, float("nan"), mx)
    total = tl.zeros([BLOCK_B], tl.float32)
    for v0 in range(0, V, BLOCK_V):
        cols = v0 + tl.arange(0, BLOCK_V)
        mask = r_ok[:, None] & (cols < V)[None, :]
        x = tl.load(x_row + cols[None, :] * stride_xv, mask=mask, other=float("-inf")).to(tl.float32)
        z = x - mx[:, None]
        total += tl.sum(tl.where(mask & (z >= log_min_p), tl.exp(z), 0.0), axis=1)
    for v0 in range(0, V, BLOCK_V):
        cols = v0 + tl.arange(0, BLOCK_V)
        mask = r_ok[:, None] & (cols < V)[None, :]
        x = tl.load(x_row + cols[None, :] * stride_xv, mask=mask, other=float("-inf")).to(tl.float32)
        z = x - mx[:, None]
        p = tl.where(z >= log_min_p, tl.exp(z), 0.0) / total[:, None]
        tl.store(o_row + cols[None, :], p.to(out_ptr.dtype.element_ty), mask=mask)


def min_p_filter(logits: torch.Tensor, min_p: float = 0.1, BLOCK_B: int = 4, BLOCK_V: int = 512) -> torch.Tensor:
    B, V = logits.shape
    out = torch.empty((B, V), dtype=logits.dtype, device=logits.device)
    if B == 0 or V == 0:
        return out
    min_p_kernel[(triton.cdiv(B, BLOCK_B),)](logits, out, B, V, math.log(min_p), logits.stride(0), logits.stride(1),
                                             BLOCK_B=BLOCK_B, BLOCK_V=BLOCK_V)
    return out


def reference(logits: torch.Tensor, min_p: float = 0.1) -> torch.Tensor:
    z = logits - logits.amax(dim=-1, keepdim=True)
    e = torch.where(z >= math.log(min_p), torch.exp(z), torch.zeros_like(z))
    return e / e.sum(dim=-1, keepdim=True)


spec = kcheck.Spec(
    name="hx14_min_p_filter_ok",
    kernel=min_p_filter,
    reference=reference,
    inputs=[kcheck.Tensor("B", "V", name="logits")],
    dims={"B": kcheck.Dim(nominal=16), "V": kcheck.Dim(nominal=4096)},
    reduce=["V"],
    params={"min_p": [0.1, 0.02]},
    configs=[{"BLOCK_B": 4, "BLOCK_V": 512}, {"BLOCK_B": 1, "BLOCK_V": 2048}],
)
