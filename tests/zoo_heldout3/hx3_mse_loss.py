"""Mean squared error loss, `F.mse_loss(pred, target)` (mean reduction) in one launch: each program writes the fp32
sum of squared differences of its BLOCK elements to a workspace, and the last program of the grid adds the partial
sums in order and writes the mean."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def mse_kernel(p_ptr, t_ptr, partial_ptr, out_ptr, n, BLOCK: tl.constexpr, RBLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    t = tl.load(t_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    d = p - t
    tl.store(partial_ptr + pid, tl.sum(d * d, axis=0))
    num = tl.num_programs(0)
    if pid == num - 1:
        acc = tl.zeros([RBLOCK], dtype=tl.float32)
        for start in range(0, num, RBLOCK):
            idx = start + tl.arange(0, RBLOCK)
            acc += tl.load(partial_ptr + idx, mask=idx < num, other=0.0)
        tl.store(out_ptr, (tl.sum(acc, axis=0) / n).to(out_ptr.dtype.element_ty))


def mse_loss(pred: torch.Tensor, target: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    n = pred.numel()
    out = torch.empty((), dtype=pred.dtype, device=pred.device)
    if n == 0:
        return out.fill_(float("nan"))
    pred, target = pred.reshape(-1), target.reshape(-1)
    grid = triton.cdiv(n, BLOCK)
    partial = torch.empty(grid, dtype=torch.float32, device=pred.device)
    mse_kernel[(grid,)](pred, target, partial, out, n, BLOCK=BLOCK, RBLOCK=256)
    return out


spec = kcheck.Spec(
    name="hx3_mse_loss",
    kernel=mse_loss,
    reference=lambda pred, target: torch.nn.functional.mse_loss(pred, target),
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=256), "N": kcheck.Dim(nominal=1024)},
    reduce=["M", "N"],
    configs=[{"BLOCK": 1024}, {"BLOCK": 4096}],
)

BUG_CLASS = "race"
