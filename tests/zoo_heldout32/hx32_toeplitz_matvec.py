"""Batched Toeplitz matrix-vector product without forming the matrix: T is N x N with first column c and first row
r (r[0] unused, the diagonal is c[0]), T[i, j] = c[i - j] for i >= j and r[j - i] for i < j, and y[b] = T x[b]
(stationary covariance or a non-causal FIR filter applied to a batch of signals).

A 2-D grid: axis 0 the batch, axis 1 blocks of BLOCK_I output entries. Each program walks j in BLOCK_J chunks,
gathering the [BLOCK_I, BLOCK_J] tile of T from c and r by the diagonal offset i - j, and sums T[i, j] x[b, j] per
lane in fp32. Strides honoured, int64 offsets, the result in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "index-transposition"


@triton.jit
def toeplitz_mv_kernel(c_ptr, r_ptr, x_ptr, y_ptr, N, s_c, s_r, s_xb, s_xn, s_yb, s_yn,
                       BLOCK_I: tl.constexpr, BLOCK_J: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    i = tl.program_id(1).to(tl.int64) * BLOCK_I + tl.arange(0, BLOCK_I).to(tl.int64)
    acc = tl.zeros([BLOCK_I, BLOCK_J], dtype=tl.float32)
    for start in range(0, N, BLOCK_J):
        j = start + tl.arange(0, BLOCK_J).to(tl.int64)
        jmask = j < N
        mask = (i < N)[:, None] & jmask[None, :]
        d = j[None, :] - i[:, None]
        lower = tl.load(c_ptr + d * s_c, mask=mask & (d >= 0), other=0.0).to(tl.float32)
        upper = tl.load(r_ptr - d * s_r, mask=mask & (d < 0), other=0.0).to(tl.float32)
        t = tl.where(d >= 0, lower, upper)
        x = tl.load(x_ptr + b * s_xb + j * s_xn, mask=jmask, other=0.0).to(tl.float32)
        acc += tl.where(mask, t * x[None, :], 0.0)
    y = tl.sum(acc, axis=1)
    tl.store(y_ptr + b * s_yb + i * s_yn, y.to(y_ptr.dtype.element_ty), mask=i < N)


def toeplitz_matvec(c: torch.Tensor, r: torch.Tensor, x: torch.Tensor, BLOCK_I: int = 32,
                    BLOCK_J: int = 64) -> torch.Tensor:
    B, N = x.shape
    y = torch.empty((B, N), dtype=x.dtype, device=x.device)
    if B == 0 or N == 0:
        return y
    grid = (B, triton.cdiv(N, BLOCK_I))
    toeplitz_mv_kernel[grid](c, r, x, y, N, c.stride(0), r.stride(0), x.stride(0), x.stride(1), y.stride(0),
                             y.stride(1), BLOCK_I=BLOCK_I, BLOCK_J=BLOCK_J)
    return y


def reference(c: torch.Tensor, r: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    N = x.shape[-1]
    idx = torch.arange(N, device=x.device)
    d = idx[:, None] - idx[None, :]
    T = torch.where(d >= 0, c[d.clamp(min=0)], r[(-d).clamp(min=0)])
    return x @ T.T


spec = kcheck.Spec(
    name="hx32_toeplitz_matvec",
    kernel=toeplitz_matvec,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="c"), kcheck.Tensor("N", name="r"), kcheck.Tensor("B", "N", name="x")],
    dims={"B": kcheck.Dim(nominal=3, max=6, real=()), "N": kcheck.Dim(nominal=160, max=2048, real=())},
    reduce=["N"],
    configs=[{"BLOCK_I": 32, "BLOCK_J": 64}, {"BLOCK_I": 16, "BLOCK_J": 16}],
)
