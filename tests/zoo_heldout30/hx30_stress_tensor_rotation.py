"""Rotation of second-order tensors (continuum mechanics): sigma' = R sigma R^T for a batch of 3x3 stress tensors
sigma[n] and rotation (or general change-of-basis) matrices R[n]:

    sigma'[n, i, j] = sum_k sum_l R[n, i, k] * sigma[n, k, l] * R[n, j, l]

Each program takes BLOCK tensors as [BLOCK, 4, 4] tiles (the 3x3 entries, zero padded) and forms both products by
broadcasting and summing in fp32; int64 offsets."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "index-transposition"


@triton.jit
def rotate_kernel(r_ptr, s_ptr, out_ptr, N, s_rn, s_ri, s_rj, s_sn, s_si, s_sj, s_on, s_oi, s_oj,
                  BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    n = (pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64))[:, None, None]
    i = tl.arange(0, 4).to(tl.int64)[None, :, None]
    j = tl.arange(0, 4).to(tl.int64)[None, None, :]
    mask = (n < N) & (i < 3) & (j < 3)
    r = tl.load(r_ptr + n * s_rn + i * s_rj + j * s_ri, mask=mask, other=0.0).to(tl.float32)
    s = tl.load(s_ptr + n * s_sn + i * s_si + j * s_sj, mask=mask, other=0.0).to(tl.float32)
    # a[n, i, l] = sum_k r[n, i, k] * s[n, k, l]
    a = tl.sum(r[:, :, :, None] * s[:, None, :, :], axis=2)
    a = tl.where(j < 3, a, 0.0)  # padding column l = 3 (0 * inf there would be NaN)
    # out[n, i, j] = sum_l a[n, i, l] * r[n, j, l]
    out = tl.sum(a[:, :, None, :] * r[:, None, :, :], axis=3)
    tl.store(out_ptr + n * s_on + i * s_oi + j * s_oj, out.to(out_ptr.dtype.element_ty), mask=mask)


def rotate_tensors(rot: torch.Tensor, sigma: torch.Tensor, BLOCK: int = 32) -> torch.Tensor:
    N = sigma.shape[0]
    out = torch.empty((N, 3, 3), dtype=sigma.dtype, device=sigma.device)
    if N == 0:
        return out
    rotate_kernel[(triton.cdiv(N, BLOCK),)](rot, sigma, out, N, *rot.stride(), *sigma.stride(), *out.stride(),
                                            BLOCK=BLOCK)
    return out


def reference(rot: torch.Tensor, sigma: torch.Tensor) -> torch.Tensor:
    return rot @ sigma @ rot.transpose(-1, -2)


spec = kcheck.Spec(
    name="hx30_stress_tensor_rotation",
    kernel=rotate_tensors,
    reference=reference,
    inputs=[kcheck.Tensor("N", 3, 3, name="rotation"), kcheck.Tensor("N", 3, 3, name="stress")],
    dims={"N": kcheck.Dim(nominal=1000)},
    configs=[{"BLOCK": 32}, {"BLOCK": 8}],
)
