"""Row-wise cosine similarity of two embedding batches (contrastive / retrieval scoring):
out[m] = <a_m, b_m> / max(|a_m| |b_m|, eps). One program per BLOCK_M rows, the rows read in BLOCK_D chunks with the
dot product and both squared norms accumulated in fp32. Inputs are embeddings of normal magnitude (no subnormals).
"""

import torch
import triton
import triton.language as tl

import kcheck

EPS = 1e-8


@triton.jit
def cosine_kernel(a_ptr, b_ptr, o_ptr, M, D, eps, stride_am, stride_ad, stride_bm, stride_bd,
                  BLOCK_M: tl.constexpr, BLOCK_D: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    dot = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)
    na = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)
    nb = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)
    for start in range(0, D, BLOCK_D):
        d = start + tl.arange(0, BLOCK_D).to(tl.int64)
        mask = row_mask[:, None] & (d < D)[None, :]
        a = tl.load(a_ptr + rows[:, None] * stride_am + d[None, :] * stride_ad, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + rows[:, None] * stride_bm + d[None, :] * stride_bd, mask=mask, other=0.0).to(tl.float32)
        dot += a * b
        na += a * a
        nb += b * b
    denom = tl.sqrt(tl.sum(na, axis=1)) * tl.sqrt(tl.sum(nb, axis=1))
    out = tl.sum(dot, axis=1) / denom
    tl.store(o_ptr + rows, out.to(o_ptr.dtype.element_ty), mask=row_mask)


def cosine_similarity(a: torch.Tensor, b: torch.Tensor, BLOCK_M: int = 16, BLOCK_D: int = 64) -> torch.Tensor:
    M, D = a.shape
    out = torch.empty((M,), dtype=a.dtype, device=a.device)
    if M:
        cosine_kernel[(triton.cdiv(M, BLOCK_M),)](a, b, out, M, D, EPS, a.stride(0), a.stride(1), b.stride(0),
                                                  b.stride(1), BLOCK_M=BLOCK_M, BLOCK_D=BLOCK_D)
    return out


def reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return (a * b).sum(-1) / torch.clamp_min(a.norm(dim=-1) * b.norm(dim=-1), EPS)


BUG_CLASS = "division-by-zero"

spec = kcheck.Spec(
    name="hx13_cosine_similarity",
    kernel=cosine_similarity,
    reference=reference,
    inputs=[kcheck.Tensor("M", "D", name="a"), kcheck.Tensor("M", "D", name="b")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "D": kcheck.Dim(nominal=256, real=(768,))},
    reduce=["D"],
    patterns=["randn", "zeros", "ones", "eye", "arange", "large", "nonfinite", "constant", "large_mean"],
    configs=[{"BLOCK_M": 16, "BLOCK_D": 64}, {"BLOCK_M": 4, "BLOCK_D": 256}],
)
