"""One AdamW step, out of place, over a flat parameter vector:

    m' = b1 m + (1 - b1) g            v' = b2 v + (1 - b2) g^2
    p' = p - lr (m' / (1 - b1^t) / (sqrt(v' / (1 - b2^t)) + eps) + wd p)

Math in fp32 whatever the storage dtype; the three results come back in the parameter's dtype. The bias
corrections are computed once on the host in float64. Each input keeps its own stride (a 1-D view may start
anywhere in its buffer).
"""

import math

import torch
import triton
import triton.language as tl

import kcheck

LR, BETA1, BETA2, EPS, WD = 1e-3, 0.9, 0.999, 1e-8, 0.01


@triton.jit
def adamw_kernel(p_ptr, g_ptr, m_ptr, v_ptr, p_out, m_out, v_out, n, sp, sg, sm, sv,
                 lr, beta1, beta2, eps, wd, inv_bc1, inv_bc2, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs * sp, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs * sg, mask=mask, other=0.0).to(tl.float32)
    m = tl.load(m_ptr + offs * sm, mask=mask, other=0.0).to(tl.float32)
    v = tl.load(v_ptr + offs * sv, mask=mask, other=0.0).to(tl.float32)
    m = beta1 * m + (1.0 - beta1) * g
    v = beta2 * v + (1.0 - beta2) * g * g
    update = (m * inv_bc1) / (tl.sqrt(v * inv_bc2) + eps) + wd * p
    p = p - lr * update
    tl.store(p_out + offs, p.to(p_out.dtype.element_ty), mask=mask)
    tl.store(m_out + offs, m.to(m_out.dtype.element_ty), mask=mask)
    tl.store(v_out + offs, v.to(v_out.dtype.element_ty), mask=mask)


def adamw_step(p: torch.Tensor, g: torch.Tensor, m: torch.Tensor, v: torch.Tensor, step: int = 10,
               BLOCK: int = 1024) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    (n,) = p.shape
    p_new, m_new, v_new = (torch.empty(n, dtype=p.dtype, device=p.device) for _ in range(3))
    if n == 0:
        return p_new, m_new, v_new
    inv_bc1 = 1.0 / (1.0 - BETA1 ** step)
    inv_bc2 = 1.0 / (1.0 - BETA2 ** step)
    adamw_kernel[(triton.cdiv(n, BLOCK),)](p, g, m, v, p_new, m_new, v_new, n,
                                           p.stride(0), g.stride(0), m.stride(0), v.stride(0),
                                           LR, BETA1, BETA2, EPS, WD, inv_bc1, inv_bc2, BLOCK=BLOCK)
    return p_new, m_new, v_new


def reference(p, g, m, v, step=10):
    m2 = BETA1 * m + (1 - BETA1) * g
    v2 = BETA2 * v + (1 - BETA2) * g * g
    m_hat = m2 / (1 - BETA1 ** step)
    v_hat = v2 / (1 - BETA2 ** step)
    p2 = p - LR * (m_hat / (torch.sqrt(v_hat) + EPS) + WD * p)
    return p2, m2, v2


def second_moment(ctx: kcheck.CaseContext) -> torch.Tensor:
    """A second-moment state is non-negative: squares of earlier gradients, averaged."""
    n = ctx.dims["N"]
    return ctx.randn(n, dtype=torch.float32).square().mul_(math.e / 10).to(ctx.dtype)


spec = kcheck.Spec(
    name="hx5_adamw_step",
    kernel=adamw_step,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="param"), kcheck.Tensor("N", name="grad"), kcheck.Tensor("N", name="exp_avg"),
            kcheck.Custom(second_moment, name="exp_avg_sq", dims=("N",))],
    dims={"N": kcheck.Dim(nominal=4096)},
    params={"step": [10, 1]},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

BUG_CLASS = None
