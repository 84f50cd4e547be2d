"""Fused AdamW step on a flat parameter: one pass reads the parameter, its gradient and both moments, and writes
the updated parameter and moments (fp32 math whatever the storage dtype). Step count, learning rate, betas, eps and
weight decay are scalars of the call; bias corrections are folded into the step size on the host."""

import torch
import triton
import triton.language as tl

import kcheck

LR, BETA1, BETA2, EPS, WD, STEP = 1e-3, 0.9, 0.999, 1e-8, 0.01, 10


@triton.jit
def adamw_kernel(p_ptr, g_ptr, m_ptr, v_ptr, p_out, m_out, v_out, n, lr, beta1, beta2, eps, wd, step_size,
                 bc2_sqrt, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask).to(tl.float32)
    m = tl.load(m_ptr + offs, mask=mask).to(tl.float32)
    v = tl.load(v_ptr + offs).to(tl.float32)
    m = beta1 * m + (1.0 - beta1) * g
    v = beta2 * v + (1.0 - beta2) * g * g
    p = p * (1.0 - lr * wd)
    denom = tl.sqrt(v) / bc2_sqrt + eps
    p = p - step_size * m / denom
    tl.store(p_out + offs, p.to(p_out.dtype.element_ty), mask=mask)
    tl.store(m_out + offs, m.to(m_out.dtype.element_ty), mask=mask)
    tl.store(v_out + offs, v.to(v_out.dtype.element_ty), mask=mask)


def adamw(p, g, m, v, BLOCK=1024):
    n = p.numel()
    p_new, m_new, v_new = torch.empty_like(p), torch.empty_like(m), torch.empty_like(v)
    if n == 0:
        return p_new, m_new, v_new
    p, g, m, v = p.contiguous(), g.contiguous(), m.contiguous(), v.contiguous()
    bc1 = 1.0 - BETA1 ** STEP
    bc2 = 1.0 - BETA2 ** STEP
    adamw_kernel[(triton.cdiv(n, BLOCK),)](p, g, m, v, p_new, m_new, v_new, n, LR, BETA1, BETA2, EPS, WD,
                                           LR / bc1, bc2 ** 0.5, BLOCK=BLOCK)
    return p_new, m_new, v_new


def reference(p, g, m, v):
    m = BETA1 * m + (1 - BETA1) * g
    v = BETA2 * v + (1 - BETA2) * g * g
    m_hat = m / (1 - BETA1 ** STEP)
    v_hat = v / (1 - BETA2 ** STEP)
    p = p * (1 - LR * WD) - LR * m_hat / (v_hat.sqrt() + EPS)
    return p, m, v


def second_moment(ctx: kcheck.CaseContext) -> torch.Tensor:
    """A second moment is non-negative: squares of earlier gradients."""
    return ctx.randn(ctx.dims["N"]).float().pow(2).to(ctx.dtype)


spec = kcheck.Spec(
    name="hx4_adamw_step",
    kernel=adamw,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="param"), kcheck.Tensor("N", name="grad"), kcheck.Tensor("N", name="exp_avg"),
            kcheck.Custom(second_moment, name="exp_avg_sq", dims=("N",))],
    dims={"N": kcheck.Dim(nominal=4096)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

BUG_CLASS = "edge-guard"
