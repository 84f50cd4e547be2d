"""Soft demapping of Gray-coded 16-QAM: max-log bit LLRs of received symbols y = (I, Q) under noise variance
sigma^2. Each axis is a Gray-coded 4-PAM with levels -3, -1, 1, 3 and gives two bits::

    sign bit:       L0 = 2 y / sigma^2             if |y| <= 2,    4 (y - sign(y)) / sigma^2   otherwise
    magnitude bit:  L1 = 2 (2 - |y|) / sigma^2

y is [N, 2]; the LLRs are [N, 4] = (L0(I), L1(I), L0(Q), L1(Q)). The launcher flattens the symbols to their 2N
components and one 1-D grid covers them, each component writing its two LLRs. fp32 arithmetic; the noise
variance is a mode.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "kernel-raises"


@triton.jit
def qam16_llr_kernel(y_ptr, llr_ptr, total, inv_var, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < total
    y = tl.load(y_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    ay = tl.abs(y)
    sgn = tl.where(y > 0.0, 1.0, -1.0)
    l0 = tl.where(ay <= 2.0, 2.0 * y, 4.0 * (y - sgn)) * inv_var
    l1 = 2.0 * (2.0 - ay) * inv_var
    ty = llr_ptr.dtype.element_ty
    tl.store(llr_ptr + 2 * offs, l0.to(ty), mask=mask)
    tl.store(llr_ptr + 2 * offs + 1, l1.to(ty), mask=mask)


def qam16_llr(y: torch.Tensor, noise_var: float = 0.5, BLOCK: int = 1024) -> torch.Tensor:
    N = y.shape[0]
    llr = torch.empty((N, 4), dtype=y.dtype, device=y.device)
    components = y.view(-1)
    total = components.numel()
    if total:
        qam16_llr_kernel[(triton.cdiv(total, BLOCK),)](components, llr, total, 1.0 / noise_var, BLOCK=BLOCK)
    return llr


def reference(y: torch.Tensor, noise_var: float = 0.5) -> torch.Tensor:
    ay = y.abs()
    sgn = torch.where(y > 0, 1.0, -1.0).to(y.dtype)
    l0 = torch.where(ay <= 2, 2 * y, 4 * (y - sgn)) / noise_var
    l1 = 2 * (2 - ay) / noise_var
    return torch.stack((l0, l1), dim=-1).reshape(y.shape[0], 4)


spec = kcheck.Spec(
    name="qam16_llr",
    kernel=qam16_llr,
    reference=reference,
    inputs=[kcheck.Tensor("N", 2, name="symbols")],
    dims={"N": kcheck.Dim(nominal=4096)},
    params={"noise_var": [0.5, 2.0]},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)
