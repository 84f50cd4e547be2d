"""Temperature sharpening of class-probability rows (MixMatch's guessed-label sharpening).

    y[m, n] = p[m, n]^(1/T) / sum_k p[m, k]^(1/T)          (T = TEMPERATURE < 1 sharpens)

p^(1/T) is computed as exp2(log2(p) / T) in fp32 (0 stays 0). One program per row, two passes over BLOCK_N-wide
chunks: the normalizer, then the write. BLOCK_N is the row length rounded up to a power of two, at most 1024.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "kernel-raises"

TEMPERATURE = 0.5


@triton.jit
def sharpen_kernel(p_ptr, y_ptr, N, spm, spn, sym, syn, inv_t, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = cols < N
        p = tl.load(p_ptr + row * spm + cols * spn, mask=mask, other=0.0).to(tl.float32)
        acc += tl.exp2(tl.log2(p) * inv_t)
    inv_z = 1.0 / tl.sum(acc, axis=0)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = cols < N
        p = tl.load(p_ptr + row * spm + cols * spn, mask=mask, other=0.0).to(tl.float32)
        y = tl.exp2(tl.log2(p) * inv_t) * inv_z
        tl.store(y_ptr + row * sym + cols * syn, y.to(y_ptr.dtype.element_ty), mask=mask)


def sharpen(p):
    M, N = p.shape
    y = torch.empty((M, N), dtype=p.dtype, device=p.device)
    if M == 0 or N == 0:
        return y
    block_n = min(N, 1024)
    sharpen_kernel[(M,)](p, y, N, p.stride(0), p.stride(1), y.stride(0), y.stride(1), 1.0 / TEMPERATURE,
                         BLOCK_N=block_n)
    return y


def reference(p):
    q = p ** (1.0 / TEMPERATURE)
    return q / q.sum(-1, keepdim=True)


def prob_rows(ctx: kcheck.CaseContext) -> torch.Tensor:
    M, N = ctx.dims["M"], ctx.dims["N"]
    w = ctx.rand(M, N, dtype=torch.float32) + 0.01
    return (w / w.sum(-1, keepdim=True)).to(ctx.dtype)


spec = kcheck.Spec(
    name="hx22_sharpen_probs",
    kernel=sharpen,
    reference=reference,
    inputs=[kcheck.Custom(prob_rows, name="probs", dims=("M", "N"))],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=100, real=(10, 1000, 21843))},
    reduce=["N"],
)
