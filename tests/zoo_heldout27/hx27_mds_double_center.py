"""Double centering of a dissimilarity matrix, the first step of classical multidimensional scaling:

B = -1/2 * J D J,  J = I - 11^T / N,  i.e.  B[i, j] = -1/2 * (D[i, j] - r[i] - c[j] + g)

with r the row means, c the column means and g the grand mean of D. Pass 1: each program reduces a square
BLOCK x BLOCK tile of D along both axes and adds its partial row and column sums into fp32 buffers with atomics.
Pass 2 applies the centering tile by tile.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = 'wrong-axis'


@triton.jit
def mds_sums_kernel(d_ptr, rsum_ptr, csum_ptr, N, s_r, s_c, BLOCK: tl.constexpr):
    ri = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    ci = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    rm = ri < N
    cm = ci < N
    mask = rm[:, None] & cm[None, :]
    d = tl.load(d_ptr + ri[:, None] * s_r + ci[None, :] * s_c, mask=mask, other=0.0).to(tl.float32)
    rs = tl.sum(d, axis=0)
    cs = tl.sum(d, axis=0)
    tl.atomic_add(rsum_ptr + ri, rs, mask=rm)
    tl.atomic_add(csum_ptr + ci, cs, mask=cm)


@triton.jit
def mds_center_kernel(d_ptr, rsum_ptr, csum_ptr, out_ptr, N, g, s_r, s_c, s_or, s_oc, BLOCK: tl.constexpr):
    ri = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    ci = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    rm = ri < N
    cm = ci < N
    mask = rm[:, None] & cm[None, :]
    d = tl.load(d_ptr + ri[:, None] * s_r + ci[None, :] * s_c, mask=mask, other=0.0).to(tl.float32)
    r = tl.load(rsum_ptr + ri, mask=rm, other=0.0) / N
    c = tl.load(csum_ptr + ci, mask=cm, other=0.0) / N
    b = -0.5 * (d - r[:, None] - c[None, :] + g)
    tl.store(out_ptr + ri[:, None] * s_or + ci[None, :] * s_oc, b.to(out_ptr.dtype.element_ty), mask=mask)


def double_center(D: torch.Tensor, BLOCK: int = 32) -> torch.Tensor:
    N = D.shape[0]
    out = torch.empty((N, N), dtype=D.dtype, device=D.device)
    if N == 0:
        return out
    rsum = torch.zeros((N,), dtype=torch.float32, device=D.device)
    csum = torch.zeros((N,), dtype=torch.float32, device=D.device)
    grid = (triton.cdiv(N, BLOCK), triton.cdiv(N, BLOCK))
    mds_sums_kernel[grid](D, rsum, csum, N, D.stride(0), D.stride(1), BLOCK=BLOCK)
    g = float(rsum.double().sum()) / (N * N)
    mds_center_kernel[grid](D, rsum, csum, out, N, g, D.stride(0), D.stride(1), out.stride(0), out.stride(1),
                            BLOCK=BLOCK)
    return out


def reference(D: torch.Tensor) -> torch.Tensor:
    r = D.mean(1, keepdim=True)
    c = D.mean(0, keepdim=True)
    return -0.5 * (D - r - c + D.mean())


spec = kcheck.Spec(
    name="hx27_mds_double_center",
    kernel=double_center,
    reference=reference,
    inputs=[kcheck.Tensor("N", "N", name="D")],
    dims={"N": kcheck.Dim(nominal=96, real=())},
    reduce=["N"],
    configs=[{"BLOCK": 32}, {"BLOCK": 16}],
)
