"""Tiled GEMM, C = A @ B with tl.dot: A (M, K), B (K, N), masks on the M, N and K tails, fp32 accumulator,
output in the input dtype. Offsets are int64 (M*K, K*N or M*N may pass 2**31); any strides are accepted.

fp32 inputs multiply in TF32 on the GPU (tl.dot's default input_precision), hence the "tf32" precision.
Programs are grouped along M (GROUP_M) so that neighbouring programs reuse the same B columns from L2.

When the output has too few tiles to fill the GPU and K is long (a 17x17 output over K = 128256), K is split
across programs (split-K): each writes an fp32 partial product to a workspace, and a second kernel sums the
partials in a fixed order (deterministic, no atomics). Besides filling the GPU, this shortens each serial fp32
accumulation chain from K/BLOCK_K steps to K/(SPLIT_K*BLOCK_K).
"""

import torch
import triton
import triton.language as tl

import kcheck

#: Programs that fill an H100/H200 (132 SMs); split-K aims at about this many.
_SMS = 132
#: Each K split gets at least this many BLOCK_K steps.
_MIN_K_STEPS = 8


@triton.jit
def gemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, K_PER_SPLIT,
                stride_am, stride_ak, stride_bk, stride_bn, stride_cs, stride_cm, stride_cn,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    pid_k = tl.program_id(1)
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
    a_rows = a_ptr + rm[:, None] * stride_am
    b_cols = b_ptr + rn[None, :] * stride_bn
    k_lo = pid_k.to(tl.int64) * K_PER_SPLIT
    k_hi = tl.minimum(k_lo + K_PER_SPLIT, K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(k_lo, k_hi, BLOCK_K):
        kk = k + rk  # int64: k * stride stays exact past 2**31
        a = tl.load(a_rows + kk[None, :] * stride_ak, mask=(rm[:, None] < M) & (kk[None, :] < k_hi), other=0.0)
        b = tl.load(b_cols + kk[:, None] * stride_bk, mask=(kk[:, None] < k_hi) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    c_ptrs = c_ptr + pid_k.to(tl.int64) * stride_cs + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def split_sum_kernel(ws_ptr, c_ptr, MN, SPLIT, BLOCK: tl.constexpr):
    """c[i] = sum over s of ws[s, i], in order s = 0, 1, ... (ws is contiguous (SPLIT, M*N) fp32, c contiguous)."""
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < MN
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for s in range(0, SPLIT):
        acc += tl.load(ws_ptr + s * MN + offs, mask=mask, other=0.0)
    tl.store(c_ptr + offs, acc.to(c_ptr.dtype.element_ty), mask=mask)


def _split_k(M: int, N: int, K: int, BLOCK_M: int, BLOCK_N: int, BLOCK_K: int) -> tuple[int, int]:
    """(number of K splits, K per split: a multiple of BLOCK_K)."""
    tiles = triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N)
    k_steps = triton.cdiv(K, BLOCK_K)
    split = max(1, min(triton.cdiv(_SMS, tiles), k_steps // _MIN_K_STEPS))
    k_per_split = triton.cdiv(k_steps, split) * BLOCK_K
    return triton.cdiv(K, k_per_split), k_per_split


def gemm(a: torch.Tensor, b: torch.Tensor, BLOCK_M: int = 128, BLOCK_N: int = 128, BLOCK_K: int = 32,
         GROUP_M: int = 8) -> torch.Tensor:
    M, K = a.shape
    K2, N = b.shape
    assert K == K2, f"inner dimensions differ: A is {M}x{K}, B is {K2}x{N}"
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    if M == 0 or N == 0:
        return c
    if K == 0:
        return c.zero_()
    split, k_per_split = _split_k(M, N, K, BLOCK_M, BLOCK_N, BLOCK_K)
    tiles = triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N)
    num_warps = 8 if BLOCK_M * BLOCK_N >= 128 * 128 else 4
    if split == 1:
        out, stride_s = c, 0
    else:
        out = torch.empty((split, M, N), dtype=torch.float32, device=a.device)
        stride_s = out.stride(0)
    gemm_kernel[(tiles, split)](a, b, out, M, N, K, k_per_split,
                                a.stride(0), a.stride(1), b.stride(0), b.stride(1), stride_s,
                                out.stride(-2), out.stride(-1),
                                BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, GROUP_M=GROUP_M,
                                num_warps=num_warps)
    if split > 1:
        split_sum_kernel[(triton.cdiv(M * N, 1024),)](out, c, M * N, split, BLOCK=1024)
    return c


spec = kcheck.Spec(
    name="gemm",
    kernel=gemm,
    reference=torch.matmul,
    inputs=[kcheck.Tensor("M", "K"), kcheck.Tensor("K", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=128), "K": kcheck.Dim(nominal=128)},
    dtypes=["tf32", "bf16", "fp16"],
    reduce=["K"],
    configs=[{"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32}, {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}],
    properties=[kcheck.props.linear(0)],
)
