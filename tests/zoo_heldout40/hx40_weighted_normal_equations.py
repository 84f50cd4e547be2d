"""Weighted Gauss-Newton normal matrices J^T W J of a batch of Jacobians (photogrammetry: per-camera blocks of an
iteratively reweighted bundle adjustment).

J is [B, K, P]: for each of B cameras, the Jacobian of its K residuals (image coordinates of observed points) with
respect to its P parameters (pose, focal length, distortion); w is [B, K], the robust-loss weight of each residual
in this iteration. The normal matrix of camera b is N[b] = J[b]^T diag(w[b]) J[b], [P, P]. One program per camera:
a P x P tile (padded to a power of two of at least 16, as tl.dot needs) accumulated in fp32 over the residuals
BLOCK_K at a time with tl.dot, the weights applied to the J^T operand in fp32 and rounded back to the storage
dtype for the tensor-core product; strides honoured.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "kernel-raises"


@triton.jit
def jtwj_kernel(j_ptr, w_ptr, n_ptr, K, P, s_jb, s_jk, s_jp, s_wb, s_wk, s_nb, s_ni, s_nj, BLOCK_K: tl.constexpr,
                BLOCK_P: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    p = tl.arange(0, BLOCK_P).to(tl.int64)
    p_mask = p < P
    base = j_ptr + b * s_jb
    acc = tl.zeros((BLOCK_P, BLOCK_P), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k = k0 + tl.arange(0, BLOCK_K).to(tl.int64)
        k_mask = k < K
        jt = tl.load(base + p[:, None] * s_jp + k[None, :] * s_jk, mask=p_mask[:, None] & k_mask[None, :], other=0.0)
        jk = tl.load(base + k[:, None] * s_jk + p[None, :] * s_jp, mask=k_mask[:, None] & p_mask[None, :], other=0.0)
        w = tl.load(w_ptr + b * s_wb + k * s_wk, mask=k_mask, other=0.0).to(tl.float32)
        jw = jt.to(tl.float32) * w[None, :]
        acc = tl.dot(jw, jk, acc)
    tl.store(n_ptr + b * s_nb + p[:, None] * s_ni + p[None, :] * s_nj, acc.to(n_ptr.dtype.element_ty),
             mask=p_mask[:, None] & p_mask[None, :])


def weighted_normal_equations(jac: torch.Tensor, weights: torch.Tensor, BLOCK_K: int = 32) -> torch.Tensor:
    B, K, P = jac.shape
    n = torch.empty((B, P, P), dtype=jac.dtype, device=jac.device)
    if B == 0 or P == 0:
        return n
    if K == 0:
        return n.zero_()
    block_p = max(16, triton.next_power_of_2(P))
    jtwj_kernel[(B,)](jac, weights, n, K, P, jac.stride(0), jac.stride(1), jac.stride(2), weights.stride(0),
                      weights.stride(1), n.stride(0), n.stride(1), n.stride(2), BLOCK_K=BLOCK_K, BLOCK_P=block_p)
    return n


def reference(jac: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    return (jac.transpose(1, 2) * weights[:, None, :]) @ jac


spec = kcheck.Spec(
    name="hx40_weighted_normal_equations",
    kernel=weighted_normal_equations,
    reference=reference,
    inputs=[kcheck.Tensor("B", "K", "P", name="jacobian"), kcheck.Tensor("B", "K", pattern="randn", name="weights")],
    dims={"B": kcheck.Dim(nominal=24), "K": kcheck.Dim(nominal=200), "P": kcheck.Dim(nominal=9, max=64)},
    dtypes=["tf32", "bf16", "fp16"],
    reduce=["K"],
    configs=[{"BLOCK_K": 32}, {"BLOCK_K": 64}],
)
