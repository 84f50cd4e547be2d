"""Householder reflections of a batch of vectors: y = x - 2 (v . x) / (v . v) v, the reflection of each row x
through the hyperplane orthogonal to its row v (the building block of QR factorizations and of orthogonal
parametrizations); a zero v is the identity.

Rows fit one block (N <= 8192): each program takes BLOCK_M rows, forms both dot products per row in fp32 and applies
the reflection. Row offsets are int64.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-axis"
TILE = 4096  # elements per program


@triton.jit
def householder_kernel(x_ptr, v_ptr, y_ptr, M, N, s_xm, s_xn, s_vm, s_vn, s_ym, s_yn,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    v = tl.load(v_ptr + rows[:, None] * s_vm + cols[None, :] * s_vn, mask=mask, other=0.0).to(tl.float32)
    vx = tl.sum(v * x, axis=0, keep_dims=True)
    vv = tl.sum(v * v, axis=1, keep_dims=True)
    scale = tl.where(vv != 0.0, 2.0 * vx / vv, 0.0)
    y = x - scale * v
    tl.store(y_ptr + rows[:, None] * s_ym + cols[None, :] * s_yn, y.to(y_ptr.dtype.element_ty), mask=mask)


def householder_reflect(x: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return y
    block_n = triton.next_power_of_2(N)
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    householder_kernel[(triton.cdiv(M, block_m),)](
        x, v, y, M, N, x.stride(0), x.stride(1), v.stride(0), v.stride(1), y.stride(0), y.stride(1),
        BLOCK_M=block_m, BLOCK_N=block_n)
    return y


def reference(x: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    vx = (v * x).sum(-1, keepdim=True)
    vv = (v * v).sum(-1, keepdim=True)
    scale = torch.where(vv != 0, 2.0 * vx / vv, torch.zeros_like(vv))
    return x - scale * v


spec = kcheck.Spec(
    name="householder_reflect",
    kernel=householder_reflect,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("M", "N", name="v")],
    dims={"M": kcheck.Dim(nominal=100), "N": kcheck.Dim(nominal=256, max=8192)},
    reduce=["N"],
)
