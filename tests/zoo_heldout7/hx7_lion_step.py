"""One Lion optimizer step (Chen et al. 2023, "Symbolic Discovery of Optimization Algorithms"), fused and
out of place over a flat parameter buffer:

    c     = beta1 * m + (1 - beta1) * g
    p_new = p * (1 - lr * wd) - lr * sign(c)
    m_new = beta2 * m + (1 - beta2) * g

Each program updates BLOCK contiguous elements; the math runs in fp32 whatever the storage dtype."""

import torch
import triton
import triton.language as tl

import kcheck

LR, BETA1, BETA2, WD = 1e-4, 0.9, 0.99, 0.1


@triton.jit
def lion_kernel(p_ptr, g_ptr, m_ptr, p_out_ptr, m_out_ptr, n, lr, beta1, beta2, wd,
                BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    m = tl.load(m_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    c = beta1 * m + (1.0 - beta1) * g
    sign = tl.where(c > 0, 1.0, tl.where(c < 0, -1.0, 0.0))
    sign = tl.where(c != c, c, sign)  # NaN stays NaN, as torch.sign
    p_new = p * (1.0 - lr * wd) - lr * sign
    m_new = beta2 * m + (1.0 - beta2) * g
    tl.store(p_out_ptr + offs, p_new.to(p_out_ptr.dtype.element_ty), mask=mask)
    tl.store(m_out_ptr + offs, m_new.to(m_out_ptr.dtype.element_ty), mask=mask)


def lion_step(p, g, m, BLOCK=1024):
    p_out = torch.empty_like(p, memory_format=torch.contiguous_format)
    m_out = torch.empty_like(m, memory_format=torch.contiguous_format)
    n = p.numel()
    if n == 0:
        return p_out, m_out
    p, g, m = p.contiguous(), g.contiguous(), m.contiguous()
    grid = (n // BLOCK,)
    lion_kernel[grid](p, g, m, p_out, m_out, n, LR, BETA1, BETA2, WD, BLOCK=BLOCK)
    return p_out, m_out


def reference(p, g, m):
    c = BETA1 * m + (1 - BETA1) * g
    p_new = p * (1 - LR * WD) - LR * torch.sign(c)
    m_new = BETA2 * m + (1 - BETA2) * g
    return p_new, m_new


spec = kcheck.Spec(
    name="hx7_lion_step",
    kernel=lion_step,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="param"), kcheck.Tensor("N", name="grad"), kcheck.Tensor("N", name="exp_avg")],
    dims={"N": kcheck.Dim(nominal=8192)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

BUG_CLASS = "tail-tile-dropped"
