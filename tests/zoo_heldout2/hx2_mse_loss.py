"""Mean squared error loss, reduced to one fp32 scalar: mean((pred - target)**2).

Every program reduces one block in fp32, scales by 1/n and adds its share to the scalar with an atomic.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def mse_loss_kernel(p_ptr, t_ptr, loss_ptr, n, inv_n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    t = tl.load(t_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    d = p - t
    tl.atomic_add(loss_ptr, tl.sum(d * d, axis=0) * inv_n)


def mse_loss(pred, target, BLOCK=1024):
    pred = pred.contiguous().view(-1)
    target = target.contiguous().view(-1)
    n = pred.numel()
    loss = torch.empty((), dtype=torch.float32, device=pred.device)
    if n == 0:
        return loss.fill_(float("nan"))  # mean of nothing, as torch
    mse_loss_kernel[(triton.cdiv(n, BLOCK),)](pred, target, loss, n, 1.0 / n, BLOCK=BLOCK)
    return loss


spec = kcheck.Spec(
    name="hx2_mse_loss",
    kernel=mse_loss,
    reference=lambda p, t: ((p - t) ** 2).mean(),
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=16, real=()), "N": kcheck.Dim(nominal=512)},
    reduce=["M", "N"],
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
    output_dtypes=[torch.float32],
)

BUG_CLASS = "uninitialized-accumulator"
