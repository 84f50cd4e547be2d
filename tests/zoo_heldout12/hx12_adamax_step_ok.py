import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None

LR, BETA1, BETA2, EPS = 1e-3, 0.9, 0.999, 1e-8


@triton.jit
def adamax_kernel(p_ptr, g_ptr, m_ptr, u_ptr, po_ptr, mo_ptr, uo_ptr, n, step_size, beta1, beta2, eps,
                  BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    m = tl.load(m_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    u = tl.load(u_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    m = beta1 * m + (1.0 - beta1) * g
    u = tl.maximum(beta2 * u, tl.abs(g) + eps, propagate_nan=tl.PropagateNan.ALL)
    p = p - step_size * (m / u)
    tl.store(po_ptr + offs, p.to(po_ptr.dtype.element_ty), mask=mask)
    tl.store(mo_ptr + offs, m.to(mo_ptr.dtype.element_ty), mask=mask)
    tl.store(uo_ptr + offs, u.to(uo_ptr.dtype.element_ty), mask=mask)


def adamax_step(p, g, m, u, step=1, BLOCK=1024):
    p, g, m, u = p.contiguous(), g.contiguous(), m.contiguous(), u.contiguous()
    po, mo, uo = torch.empty_like(p), torch.empty_like(m), torch.empty_like(u)
    n = p.numel()
    if n:
        step_size = LR / (1.0 - BETA1**step)
        adamax_kernel[(triton.cdiv(n, BLOCK),)](p, g, m, u, po, mo, uo, n, step_size, BETA1, BETA2, EPS,
                                                BLOCK=BLOCK)
    return po, mo, uo


def reference(p, g, m, u, step=1):
    m = BETA1 * m + (1.0 - BETA1) * g
    u = torch.maximum(BETA2 * u, g.abs() + EPS)
    return p - LR / (1.0 - BETA1**step) * (m / u), m, u


spec = kcheck.Spec(
    name="hx12_adamax_step_ok",
    kernel=adamax_step,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="param"), kcheck.Tensor("N", name="grad"), kcheck.Tensor("N", name="exp_avg"),
            kcheck.Tensor("N", name="exp_inf")],
    dims={"N": kcheck.Dim(nominal=8192)},
    params={"step": [1, 10]},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)
