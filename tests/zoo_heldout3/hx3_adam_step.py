"""One fused Adam step, in place (torch.optim.Adam's update, no weight decay, no amsgrad):
m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2; p -= lr * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps).
Parameters, gradients and moments are flat fp32 buffers (as in a fused optimizer over a flattened parameter group);
returns (p, m, v), updated in place."""

import torch
import triton
import triton.language as tl

import kcheck

LR, BETA1, BETA2, EPS = 1e-3, 0.9, 0.999, 1e-8


@triton.jit
def adam_kernel(p_ptr, g_ptr, m_ptr, v_ptr, n, lr, beta1, beta2, eps, bc1, bc2, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask)
    g = tl.load(g_ptr + offs, mask=mask)
    m = tl.load(m_ptr + offs, mask=mask)
    v = tl.load(v_ptr + offs, mask=mask)
    m = beta1 * m + (1.0 - beta1) * g
    v = beta2 * v + (1.0 - beta2) * g * g
    p = p - lr * (m / bc1) / (tl.sqrt(v / bc2) + eps)
    tl.store(p_ptr + offs, p, mask=mask)
    tl.store(m_ptr + offs, m, mask=mask)
    tl.store(v_ptr + offs, v, mask=mask)


def adam_step(p: torch.Tensor, g: torch.Tensor, m: torch.Tensor, v: torch.Tensor, step: int,
              BLOCK: int = 1024) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    n = p.numel()
    if n:
        bc1 = 1.0 - BETA1 ** step
        bc2 = 1.0 - BETA1 ** step
        adam_kernel[(triton.cdiv(n, BLOCK),)](p, g, m, v, n, LR, BETA1, BETA2, EPS, bc1, bc2, BLOCK=BLOCK)
    return p, m, v


def reference(p: torch.Tensor, g: torch.Tensor, m: torch.Tensor, v: torch.Tensor,
              step: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    m = BETA1 * m + (1 - BETA1) * g
    v = BETA2 * v + (1 - BETA2) * g * g
    m_hat = m / (1 - BETA1 ** step)
    v_hat = v / (1 - BETA2 ** step)
    return p - LR * m_hat / (v_hat.sqrt() + EPS), m, v


spec = kcheck.Spec(
    name="hx3_adam_step",
    kernel=adam_step,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="param", dtype=torch.float32, mutated=True),
            kcheck.Tensor("N", name="grad", dtype=torch.float32),
            kcheck.Tensor("N", name="exp_avg", dtype=torch.float32, pattern="randn", mutated=True),
            kcheck.Tensor("N", name="exp_avg_sq", dtype=torch.float32, pattern="ones", mutated=True),
            kcheck.Scalar(10, name="step")],
    dims={"N": kcheck.Dim(nominal=1 << 16)},
    dtypes=["fp32"],
    configs=[{"BLOCK": 1024}, {"BLOCK": 4096}],
)

BUG_CLASS = "wrong-constant"
