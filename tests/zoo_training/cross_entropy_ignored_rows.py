"""Planted bug: the cross-entropy gradient is not zeroed on ignored rows (the loss is): the forward is right, and
``grad of input 0 (logits)`` is wrong exactly on the rows whose label is IGNORE_INDEX."""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

IGNORE_INDEX = -100
TILE = 4096  # elements per program: BLOCK_T rows of BLOCK_V classes


@triton.jit
def cross_entropy_fwd_kernel(x_ptr, labels_ptr, loss_ptr, dx_ptr, T, V, stride_xt, stride_xv, stride_dt, stride_dv,
                             IGNORE: tl.constexpr, BLOCK_T: tl.constexpr, BLOCK_V: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_T + tl.arange(0, BLOCK_T).to(tl.int64)
    cols = tl.arange(0, BLOCK_V).to(tl.int64)
    row_mask = rows < T
    mask = row_mask[:, None] & (cols < V)[None, :]
    label = tl.load(labels_ptr + rows, mask=row_mask, other=IGNORE)
    x = tl.load(x_ptr + rows[:, None] * stride_xt + cols[None, :] * stride_xv, mask=mask,
                other=-float("inf")).to(tl.float32)
    m = tl.max(x, axis=1)
    e = tl.exp(x - m[:, None])
    s = tl.sum(e, axis=1)
    hit = cols[None, :] == label[:, None]
    target = tl.sum(tl.where(hit, x, 0.0), axis=1)
    ignored = label == IGNORE
    loss = tl.where(ignored, 0.0, (m - target) + tl.log(s))
    grad = e / s[:, None] - tl.where(hit, 1.0, 0.0)  # BUG: not zeroed where the row is ignored
    tl.store(loss_ptr + rows, loss, mask=row_mask)
    tl.store(dx_ptr + rows[:, None] * stride_dt + cols[None, :] * stride_dv, grad.to(dx_ptr.dtype.element_ty),
             mask=mask)


class CrossEntropyFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        T, V = x.shape
        loss = torch.empty((T,), dtype=torch.float32, device=x.device)
        dx = torch.empty((T, V), dtype=x.dtype, device=x.device)
        if T:
            block_v = triton.next_power_of_2(V)
            block_t = max(1, min(TILE // block_v, triton.next_power_of_2(T)))
            cross_entropy_fwd_kernel[(triton.cdiv(T, block_t),)](
                x, y, loss, dx, T, V, x.stride(0), x.stride(1), dx.stride(0), dx.stride(1),
                IGNORE=IGNORE_INDEX, BLOCK_T=block_t, BLOCK_V=block_v)
        ctx.save_for_backward(dx)
        return loss

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, None]:
        (dx,) = ctx.saved_tensors
        return (dx.float() * g[:, None]).to(dx.dtype), None


def reference(x: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    # an ignored row's logits take no part: torch's own gradient there is 0 * softmax, NaN for a row holding NaN
    ignored = (labels == IGNORE_INDEX)[:, None]
    x = torch.where(ignored, torch.zeros((), dtype=x.dtype, device=x.device), x)
    return torch.nn.functional.cross_entropy(x, labels, ignore_index=IGNORE_INDEX, reduction="none")


def labels(ctx: kcheck.CaseContext) -> torch.Tensor:
    """Random classes in [0, V), about a quarter of the rows IGNORE_INDEX (drawn on the CPU, then moved)."""
    T, V = ctx.dims["T"], ctx.dims["V"]
    y = ctx.randint(0, V, (T,))
    ignored = ctx.rand(T, dtype=torch.float32) < 0.25
    return torch.where(ignored, torch.full_like(y, IGNORE_INDEX), y)


spec = kcheck.Spec(
    name="cross_entropy_ignored_rows",
    kernel=CrossEntropyFunction.apply,
    reference=reference,
    inputs=[kcheck.Tensor("T", "V", name="logits"), kcheck.Custom(labels, name="labels")],
    dims={"T": kcheck.Dim(nominal=64, real=()), "V": kcheck.Dim(nominal=512, min=1, max=8192, real=())},
    reduce=["V"],
    output_dtypes=[torch.float32],
    grad=True,
)
