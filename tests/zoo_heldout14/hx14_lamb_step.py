"""One LAMB optimizer step (You et al., large-batch BERT pre-training) on one flattened parameter tensor, written
functionally (new parameter and states returned, as torch.func / optax style trainers use it):

    m' = b1 m + (1 - b1) g;   v' = b2 v + (1 - b2) g^2
    u  = (m' / (1 - b1^t)) / (sqrt(v' / (1 - b2^t)) + eps) + wd * w
    r  = ||w|| / ||u||,   w' = w - lr * r * u

Two launches over a flat 1-D grid: the first writes m', v' and u and adds each program's partial sums of w^2 and
u^2 into two fp32 accumulators with atomics; the second applies the trust ratio. Master weights and optimizer
states are fp32 (mixed-precision training keeps them so), hence the single precision.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "division-by-zero"

B1, B2, EPS, WD, LR = 0.9, 0.999, 1e-6, 0.01, 1e-3


@triton.jit
def lamb_moments_kernel(w_ptr, g_ptr, m_ptr, v_ptr, m_out, v_out, u_out, norms_ptr, N, b1, b2, bc1, bc2, eps, wd,
                        BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    w = tl.load(w_ptr + offs, mask=mask, other=0.0)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0)
    m = b1 * tl.load(m_ptr + offs, mask=mask, other=0.0) + (1.0 - b1) * g
    v = b2 * tl.load(v_ptr + offs, mask=mask, other=0.0) + (1.0 - b2) * g * g
    u = (m / bc1) / (tl.sqrt(v / bc2) + eps) + wd * w
    tl.store(m_out + offs, m, mask=mask)
    tl.store(v_out + offs, v, mask=mask)
    tl.store(u_out + offs, u, mask=mask)
    tl.atomic_add(norms_ptr, tl.sum(w * w, axis=0))
    tl.atomic_add(norms_ptr + 1, tl.sum(tl.where(mask, u * u, 0.0), axis=0))


@triton.jit
def lamb_apply_kernel(w_ptr, u_ptr, norms_ptr, w_out, N, lr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    w_norm = tl.sqrt(tl.load(norms_ptr))
    u_norm = tl.sqrt(tl.load(norms_ptr + 1))
    ratio = w_norm / u_norm
    w = tl.load(w_ptr + offs, mask=mask, other=0.0)
    u = tl.load(u_ptr + offs, mask=mask, other=0.0)
    tl.store(w_out + offs, w - lr * ratio * u, mask=mask)


def lamb_step(w: torch.Tensor, g: torch.Tensor, m: torch.Tensor, v: torch.Tensor, step: int = 1,
              BLOCK: int = 1024) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    N = w.numel()
    w_new, m_new, v_new = torch.empty_like(w), torch.empty_like(m), torch.empty_like(v)
    if N == 0:
        return w_new, m_new, v_new
    u = torch.empty_like(w)
    norms = torch.zeros(2, dtype=torch.float32, device=w.device)
    grid = (triton.cdiv(N, BLOCK),)
    lamb_moments_kernel[grid](w, g, m, v, m_new, v_new, u, norms, N, B1, B2, 1.0 - B1 ** step, 1.0 - B2 ** step,
                              EPS, WD, BLOCK=BLOCK)
    lamb_apply_kernel[grid](w, u, norms, w_new, N, LR, BLOCK=BLOCK)
    return w_new, m_new, v_new


def reference(w: torch.Tensor, g: torch.Tensor, m: torch.Tensor, v: torch.Tensor,
              step: int = 1) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    m = B1 * m + (1 - B1) * g
    v = B2 * v + (1 - B2) * g * g
    u = (m / (1 - B1 ** step)) / (torch.sqrt(v / (1 - B2 ** step)) + EPS) + WD * w
    w_norm, u_norm = w.norm(), u.norm()
    ratio = torch.where((w_norm > 0) & (u_norm > 0), w_norm / u_norm, torch.ones_like(w_norm))
    return w - LR * ratio * u, m, v


def _second_moment(ctx: kcheck.CaseContext) -> torch.Tensor:
    """v is a running mean of g^2: non-negative, small."""
    return ctx.rand(ctx.dims["N"], dtype=torch.float32) * 1e-2


spec = kcheck.Spec(
    name="hx14_lamb_step",
    kernel=lamb_step,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="w"), kcheck.Tensor("N", name="grad"), kcheck.Tensor("N", name="exp_avg"),
            kcheck.Custom(_second_moment, name="exp_avg_sq", dims=("N",))],
    dims={"N": kcheck.Dim(nominal=4096)},
    dtypes=["fp32"],
    reduce=["N"],
    params={"step": [1, 100]},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)
