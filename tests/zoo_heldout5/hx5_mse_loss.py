"""Mean squared error loss over a whole batch: loss = mean((pred - target)^2), a 0-d fp32 tensor.

The operands are flattened (made contiguous); each program reduces a chunk of BLOCK * ITERS elements, ITERS
vector steps of BLOCK lanes with an fp32 accumulator per lane, and contributes its chunk's share sum / n to the
loss. Differences are formed in fp32 from the storage dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def mse_kernel(p_ptr, t_ptr, loss_ptr, n, inv_n, BLOCK: tl.constexpr, ITERS: tl.constexpr):
    chunk = tl.program_id(0).to(tl.int64) * (BLOCK * ITERS)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(ITERS):
        offs = chunk + i * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        t = tl.load(t_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        d = p - t
        acc += d * d
    tl.store(loss_ptr, tl.sum(acc, axis=0) * inv_n)


def mse_loss(pred: torch.Tensor, target: torch.Tensor, BLOCK: int = 1024, ITERS: int = 16) -> torch.Tensor:
    pred, target = pred.contiguous(), target.contiguous()
    n = pred.numel()
    loss = torch.zeros((), dtype=torch.float32, device=pred.device)
    if n == 0:
        return loss.fill_(float("nan"))  # the mean of nothing
    mse_kernel[(triton.cdiv(n, BLOCK * ITERS),)](pred, target, loss, n, 1.0 / n, BLOCK=BLOCK, ITERS=ITERS)
    return loss


def reference(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.mse_loss(pred, target)


spec = kcheck.Spec(
    name="hx5_mse_loss",
    kernel=mse_loss,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="pred"), kcheck.Tensor("M", "N", name="target")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=128)},
    reduce=["M", "N"],
    output_dtypes=[torch.float32],
    configs=[{"BLOCK": 1024, "ITERS": 16}, {"BLOCK": 256, "ITERS": 4}],
)

BUG_CLASS = "missing-atomic"
