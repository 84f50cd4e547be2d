"""Batched trace of a matrix product without forming it: t[b] = tr(A[b] B[b]) = sum_ij A[b, i, j] B[b, j, i]
(Hutchinson-free exact traces in second-order optimizers, Frobenius inner products <A^T, B> in kernel methods).

A 2-D grid: axis 0 the batch, axis 1 blocks of BLOCK_I rows of A. Each program walks its rows' columns in BLOCK_J
chunks, multiplying the [BLOCK_I, BLOCK_J] tile of A by the matching [BLOCK_J, BLOCK_I] tile of B read transposed
through its strides, and adds its fp32 partial sum to t[b] with an atomic add into a zeroed fp32 buffer. int64
offsets; the result is returned in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "uninitialized-accumulator"


@triton.jit
def trace_product_kernel(a_ptr, b_ptr, out_ptr, N, s_ab, s_ai, s_aj, s_bb, s_bi, s_bj,
                         BLOCK_I: tl.constexpr, BLOCK_J: tl.constexpr):
    bat = tl.program_id(0).to(tl.int64)
    i = tl.program_id(1).to(tl.int64) * BLOCK_I + tl.arange(0, BLOCK_I).to(tl.int64)
    a_base = a_ptr + bat * s_ab
    b_base = b_ptr + bat * s_bb
    acc = tl.zeros([BLOCK_I, BLOCK_J], dtype=tl.float32)
    for start in range(0, N, BLOCK_J):
        j = start + tl.arange(0, BLOCK_J).to(tl.int64)
        mask = (i < N)[:, None] & (j < N)[None, :]
        a = tl.load(a_base + i[:, None] * s_ai + j[None, :] * s_aj, mask=mask, other=0.0).to(tl.float32)
        bt = tl.load(b_base + j[None, :] * s_bi + i[:, None] * s_bj, mask=mask, other=0.0).to(tl.float32)
        acc += a * bt
    tl.atomic_add(out_ptr + bat, tl.sum(tl.sum(acc, axis=1), axis=0))


def trace_of_product(a: torch.Tensor, b: torch.Tensor, BLOCK_I: int = 32, BLOCK_J: int = 64) -> torch.Tensor:
    B, N, _ = a.shape
    acc = torch.empty((B,), dtype=torch.float32, device=a.device)
    if B and N:
        grid = (B, triton.cdiv(N, BLOCK_I))
        trace_product_kernel[grid](a, b, acc, N, a.stride(0), a.stride(1), a.stride(2), b.stride(0), b.stride(1),
                                   b.stride(2), BLOCK_I=BLOCK_I, BLOCK_J=BLOCK_J)
    return acc.to(a.dtype)


def reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.einsum("bij,bji->b", a, b)


spec = kcheck.Spec(
    name="hx32_trace_of_product",
    kernel=trace_of_product,
    reference=reference,
    inputs=[kcheck.Tensor("B", "N", "N", name="a"), kcheck.Tensor("B", "N", "N", name="b")],
    dims={"B": kcheck.Dim(nominal=4, max=8, real=()), "N": kcheck.Dim(nominal=96, real=())},
    reduce=["N"],
    configs=[{"BLOCK_I": 32, "BLOCK_J": 64}, {"BLOCK_I": 16, "BLOCK_J": 16}],
)
