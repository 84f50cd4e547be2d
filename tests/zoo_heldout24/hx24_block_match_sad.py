"""Block matching for motion estimation: the sum of absolute differences between a reference block and each of M
candidate blocks (every block flattened to N pixels), SAD[m] = sum_n |cand[m, n] - ref[n]|. Rows of candidates are
processed BLOCK_M at a time, looping over the pixels in BLOCK_N chunks; differences and sums in fp32, the result in
the input dtype. Any strides; int64 row offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "low-precision-accumulation"


@triton.jit
def sad_kernel(cand_ptr, ref_ptr, out_ptr, M, N, s_cm, s_cn, s_r, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    acc = tl.zeros([BLOCK_M], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        col_mask = cols < N
        mask = row_mask[:, None] & col_mask[None, :]
        a = tl.load(cand_ptr + rows[:, None] * s_cm + cols[None, :] * s_cn, mask=mask, other=0.0)
        b = tl.load(ref_ptr + cols * s_r, mask=col_mask, other=0.0)
        d = tl.abs(a - b[None, :])
        acc += tl.sum(d, axis=1)
    tl.store(out_ptr + rows, acc.to(out_ptr.dtype.element_ty), mask=row_mask)


def block_match_sad(cand: torch.Tensor, ref: torch.Tensor, BLOCK_N: int = 512, TILE: int = 4096) -> torch.Tensor:
    M, N = cand.shape
    out = torch.empty(M, dtype=cand.dtype, device=cand.device)
    if M == 0:
        return out
    if N == 0:
        return out.zero_()
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    sad_kernel[(triton.cdiv(M, block_m),)](cand, ref, out, M, N, cand.stride(0), cand.stride(1), ref.stride(0),
                                           BLOCK_M=block_m, BLOCK_N=block_n)
    return out


def reference(cand: torch.Tensor, ref: torch.Tensor) -> torch.Tensor:
    return (cand - ref[None, :]).abs().sum(-1)


spec = kcheck.Spec(
    name="hx24_block_match_sad",
    kernel=block_match_sad,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="candidates"), kcheck.Tensor("N", name="reference_block")],
    dims={"M": kcheck.Dim(nominal=128, real=()), "N": kcheck.Dim(nominal=1024)},
    reduce=["N"],
    configs=[{"BLOCK_N": 512}, {"BLOCK_N": 64}],
)
