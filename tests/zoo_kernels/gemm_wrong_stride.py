"""Bug class: index transposition (a dimension used where another belongs: B's row stride K instead of N).

The tiled GEMM of ``examples/gemm.py`` (tl.dot, fp32 accumulator, masks on the M, N and K tails, programs grouped
along M), written for contiguous operands with the row lengths spelled out: A (M, K) has rows of K, C (M, N) rows
of N, and B (K, N) rows of N, but the B address uses K. When K == N, the only shape many GEMM tests try
(128 x 128 x 128), the two are the same number and the product is exact. On any other shape the kernel reads B with
the wrong pitch: wrong products when N > K, and when N < K also reads past the end of B.
fp32 operands multiply in IEEE fp32 (``input_precision="ieee"``), so a one-shape ``assert_close`` at fp32 tolerance
is a fair casual test on a GPU too; no split-K here (the example's workspace path adds nothing to the bug).
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def gemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * num_n
    group = pid // per_group
    first_m = group * GROUP_M
    group_size = tl.minimum(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_size
    pid_n = (pid % per_group) // group_size

    rm = pid_m.to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    rn = pid_n.to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    rk = tl.arange(0, BLOCK_K).to(tl.int64)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        kk = k + rk
        a = tl.load(a_ptr + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        # BUG: B is (K, N), its rows are N long: should be kk[:, None] * N
        b = tl.load(b_ptr + kk[:, None] * K + rn[None, :], mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def gemm(a: torch.Tensor, b: torch.Tensor, BLOCK_M: int = 128, BLOCK_N: int = 128, BLOCK_K: int = 32,
         GROUP_M: int = 8) -> torch.Tensor:
    M, K = a.shape
    K2, N = b.shape
    assert K == K2, f"inner dimensions differ: A is {M}x{K}, B is {K2}x{N}"
    a, b = a.contiguous(), b.contiguous()
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    if M == 0 or N == 0:
        return c
    if K == 0:
        return c.zero_()
    tiles = triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N)
    gemm_kernel[(tiles,)](a, b, c, M, N, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, GROUP_M=GROUP_M)
    return c


spec = kcheck.Spec(
    name="gemm_wrong_stride",
    kernel=gemm,
    reference=torch.matmul,
    inputs=[kcheck.Tensor("M", "K"), kcheck.Tensor("K", "N")],
    # no 128256 among the real sizes: in the interpreter each such case takes ~20 s, and 37 and 2880 show the bug
    dims={d: kcheck.Dim(nominal=128, real=(37, 2880)) for d in "MNK"},
    dtypes=["fp32"],
    reduce=["K"],
    configs=[{"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32}, {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}],
)

BUG_CLASS = "index-transposition"
