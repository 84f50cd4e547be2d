"""Mean absolute error, F.l1_loss(x, y) with reduction='mean': one scalar, mean |x - y| over every element.

Each program sums |x - y| over ITERS chunks of BLOCK elements in fp32 and contributes its share (partial / n) to
the fp32 result, which is cast to the input dtype at the end."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def l1_loss_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr, ITERS: tl.constexpr):
    base = tl.program_id(0).to(tl.int64) * (BLOCK * ITERS)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(ITERS):
        offs = base + i * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        y = tl.load(y_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        acc += tl.where(mask, tl.abs(x - y), 0.0)
    partial = tl.sum(acc, axis=0) / n
    tl.store(out_ptr, partial)


def l1_loss(x: torch.Tensor, y: torch.Tensor, BLOCK: int = 1024, ITERS: int = 8) -> torch.Tensor:
    n = x.numel()
    if n == 0:
        return torch.full((), float("nan"), dtype=x.dtype, device=x.device)
    xf = x.contiguous().view(-1)
    yf = y.contiguous().view(-1)
    out = torch.zeros((), dtype=torch.float32, device=x.device)
    l1_loss_kernel[(triton.cdiv(n, BLOCK * ITERS),)](xf, yf, out, n, BLOCK=BLOCK, ITERS=ITERS)
    return out.to(x.dtype)


spec = kcheck.Spec(
    name="hx6_l1_loss",
    kernel=l1_loss,
    reference=torch.nn.functional.l1_loss,
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=32), "N": kcheck.Dim(nominal=128)},
    reduce=["M", "N"],
    configs=[{"BLOCK": 1024, "ITERS": 8}, {"BLOCK": 256, "ITERS": 16}],
)

BUG_CLASS = "missing-atomic"
