"""Matrix-vector product y = A @ x, A [M, K], x [K], fp32 accumulation, returned in the input dtype.

Each program takes BLOCK_M rows of A and walks its K range in BLOCK_K chunks. Short rows (K <= K_SPLIT) are one
K range per row block and stored directly; long rows are split into K_SPLIT-wide ranges whose partial dot
products are summed with atomics into an fp32 buffer, so a 128256-wide matrix still fills the GPU."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def gemv_kernel(a_ptr, x_ptr, y_ptr, M, K, K_SPLIT, stride_am, stride_ak, stride_x,
                BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr, ATOMIC: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    pid_k = tl.program_id(1).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    k_lo = pid_k * K_SPLIT
    acc = tl.zeros([BLOCK_M, BLOCK_K], dtype=tl.float32)
    for k0 in range(0, K_SPLIT, BLOCK_K):
        ks = k_lo + k0 + tl.arange(0, BLOCK_K).to(tl.int64)
        k_mask = (ks < K) & (ks < k_lo + K_SPLIT)
        a = tl.load(a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak,
                    mask=row_mask[:, None] & k_mask[None, :], other=0.0).to(tl.float32)
        x = tl.load(x_ptr + ks * stride_x, mask=k_mask, other=0.0).to(tl.float32)
        acc += a * x[None, :]
    part = tl.sum(acc, axis=1)
    if ATOMIC:
        tl.atomic_add(y_ptr + rows, part, mask=row_mask)
    else:
        tl.store(y_ptr + rows, part, mask=row_mask)


def gemv(a: torch.Tensor, x: torch.Tensor, BLOCK_M: int = 16, BLOCK_K: int = 128, K_SPLIT: int = 2048):
    M, K = a.shape
    if M == 0 or K == 0:
        return torch.zeros((M,), dtype=a.dtype, device=a.device)
    splits = triton.cdiv(K, K_SPLIT)
    k_range = K if splits == 1 else K_SPLIT
    y = torch.empty((M,), dtype=torch.float32, device=a.device)
    gemv_kernel[(triton.cdiv(M, BLOCK_M), splits)](
        a, x, y, M, K, k_range, a.stride(0), a.stride(1), x.stride(0),
        BLOCK_M=BLOCK_M, BLOCK_K=BLOCK_K, ATOMIC=splits > 1)
    return y.to(a.dtype)


spec = kcheck.Spec(
    name="hx6_gemv",
    kernel=gemv,
    reference=torch.mv,
    inputs=[kcheck.Tensor("M", "K"), kcheck.Tensor("K")],
    dims={"M": kcheck.Dim(nominal=256), "K": kcheck.Dim(nominal=1024)},
    reduce=["K"],
    configs=[{"BLOCK_M": 16, "BLOCK_K": 128}, {"BLOCK_M": 4, "BLOCK_K": 512}],
    properties=[kcheck.props.linear(1)],
)

BUG_CLASS = "uninitialized-accumulator"
