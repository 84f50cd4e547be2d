"""Row-wise L2 normalization of embeddings before a cosine-similarity search: y = x / ||x||_2, fp32 statistics,
several rows per program when rows are short, a chunk loop when they are long."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def l2_normalize_kernel(x_ptr, out_ptr, M, N, stride_m, stride_n, stride_om,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]
        x = tl.load(x_ptr + rows[:, None] * stride_m + cols[None, :] * stride_n, mask=mask, other=0.0)
        x = x.to(tl.float32)
        acc += x * x
    inv_norm = 1.0 / tl.sqrt(tl.sum(acc, axis=1))
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]
        x = tl.load(x_ptr + rows[:, None] * stride_m + cols[None, :] * stride_n, mask=mask, other=0.0)
        y = x.to(tl.float32) * inv_norm[:, None]
        tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :], y.to(out_ptr.dtype.element_ty), mask=mask)


def l2_normalize(x, BLOCK_N=256, TILE=2048):
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    l2_normalize_kernel[(triton.cdiv(M, block_m),)](x, out, M, N, x.stride(0), x.stride(1), out.stride(0),
                                                    BLOCK_M=block_m, BLOCK_N=block_n)
    return out


spec = kcheck.Spec(
    name="hx2_l2_normalize",
    kernel=l2_normalize,
    reference=lambda x: torch.nn.functional.normalize(x, dim=-1),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=384)},
    reduce=["N"],
    configs=[{"BLOCK_N": 256}, {"BLOCK_N": 64}],
)

BUG_CLASS = "division-by-zero"
