"""Row-wise cosine similarity of two embedding matrices: out[m] = <a_m, b_m> / (|a_m| |b_m|), the score of a
contrastive head. One program per block of rows, BLOCK_N-wide chunks, three fp32 running sums."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def cosine_kernel(a_ptr, b_ptr, out_ptr, M, N, stride_am, stride_an, stride_bm, stride_bn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    rmask = rows < M
    dot = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    aa = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    bb = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = rmask[:, None] & (cols < N)[None, :]
        a = tl.load(a_ptr + rows[:, None] * stride_am + cols[None, :] * stride_an, mask=mask, other=0.0)
        b = tl.load(b_ptr + rows[:, None] * stride_bm + cols[None, :] * stride_bn, mask=mask, other=0.0)
        a = a.to(tl.float32)
        b = b.to(tl.float32)
        dot += a * b
        aa += a * a
        bb += b * b
    num = tl.sum(dot, axis=1)
    den = tl.sqrt(tl.sum(aa, axis=1)) * tl.sqrt(tl.sum(bb, axis=1))
    tl.store(out_ptr + rows, (num / den).to(out_ptr.dtype.element_ty), mask=rmask)


def cosine_similarity(a, b, BLOCK_N=128):
    M, N = a.shape
    out = torch.empty(M, dtype=a.dtype, device=a.device)
    if M == 0:
        return out
    block_n = min(BLOCK_N, triton.next_power_of_2(max(N, 1)))
    block_m = max(1, min(2048 // block_n, triton.next_power_of_2(M)))
    cosine_kernel[(triton.cdiv(M, block_m),)](a, b, out, M, N, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                              BLOCK_M=block_m, BLOCK_N=block_n)
    return out


spec = kcheck.Spec(
    name="hx4_cosine_similarity",
    kernel=cosine_similarity,
    reference=lambda a, b: torch.nn.functional.cosine_similarity(a, b, dim=-1, eps=1e-8),
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=256)},
    reduce=["N"],
    configs=[{"BLOCK_N": 128}, {"BLOCK_N": 32}],
)

BUG_CLASS = "division-by-zero"
