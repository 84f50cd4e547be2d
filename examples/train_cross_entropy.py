"""Cross-entropy with label smoothing and ignore_index for training: a Triton kernel computes each row's loss and
its gradient in the same pass (the gradient is stored beside the loss, as fused training kernels do); the backward
scales it by the upstream gradient. Checked in both passes with ``Spec(grad=True)``, in both of its modes with
``Spec(params=...)``: every case passes ``label_smoothing`` and ``ignore_index`` to the kernel and to the reference
(``torch.nn.functional.cross_entropy``'s own keywords).

Per row with label y and smoothing e over V classes (a row whose label is ignore_index has loss 0 and gradient 0)::

    loss = (1 - e) * (logsumexp(x) - x[y]) + e * (logsumexp(x) - mean(x))
    dloss/dx = softmax(x) - (1 - e) * onehot(y) - e / V

The labels are a ``Custom`` input of declared shape [T]: random classes, about a quarter of the rows set to the
case's ignore_index, drawn with ``ctx.randint``/``ctx.rand`` (on the CPU, then moved: the same labels on a CPU and
on a GPU). Each program takes BLOCK_T rows of one block each (V <= 8192); the loss is fp32 whatever the logits'
dtype.
"""

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
                             IGNORE: tl.constexpr, SMOOTHING: tl.constexpr, BLOCK_T: tl.constexpr,
                             BLOCK_V: tl.constexpr):
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
    # (m - x[y]) first: exact for close values, where lse - x[y] would cancel (logits with a large mean)
    loss = (m - target) + tl.log(s)
    grad = e / s[:, None] - tl.where(hit, 1.0, 0.0)
    if SMOOTHING != 0.0:  # lse - mean(x) = log(s) - mean(x - m): the differences are small, no cancellation
        spread = tl.sum(tl.where(mask, x - m[:, None], 0.0), axis=1) / V
        loss = (1.0 - SMOOTHING) * loss + SMOOTHING * (tl.log(s) - spread)
        grad = e / s[:, None] - (1.0 - SMOOTHING) * tl.where(hit, 1.0, 0.0) - SMOOTHING / V
    loss = tl.where(ignored, 0.0, loss)
    grad = tl.where(ignored[:, None], 0.0, grad)
    tl.store(loss_ptr + rows, loss, mask=row_mask)
    tl.store(dx_ptr + rows[:, None] * stride_dt + cols[None, :] * stride_dv, grad.to(dx_ptr.dtype.element_ty),
             mask=mask)


def cross_entropy_forward(x: torch.Tensor, labels: torch.Tensor, label_smoothing: float = 0.0,
                          ignore_index: int = IGNORE_INDEX) -> tuple[torch.Tensor, torch.Tensor]:
    T, V = x.shape
    loss = torch.empty((T,), dtype=torch.float32, device=x.device)
    dx = torch.empty((T, V), dtype=x.dtype, device=x.device)
    if T == 0:
        return loss, dx
    block_v = triton.next_power_of_2(V)
    block_t = max(1, min(TILE // block_v, triton.next_power_of_2(T)))
    cross_entropy_fwd_kernel[(triton.cdiv(T, block_t),)](
        x, labels, loss, dx, T, V, x.stride(0), x.stride(1), dx.stride(0), dx.stride(1),
        IGNORE=ignore_index, SMOOTHING=float(label_smoothing), BLOCK_T=block_t, BLOCK_V=block_v)
    return loss, dx


class CrossEntropyFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, labels: torch.Tensor, label_smoothing: float,
                ignore_index: int) -> torch.Tensor:
        loss, dx = cross_entropy_forward(x, labels, label_smoothing, ignore_index)
        ctx.save_for_backward(dx)
        return loss

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, None, None, None]:
        (dx,) = ctx.saved_tensors
        return (dx.float() * g[:, None]).to(dx.dtype), None, None, None


def cross_entropy(x: torch.Tensor, labels: torch.Tensor, label_smoothing: float = 0.0,
                  ignore_index: int = IGNORE_INDEX) -> torch.Tensor:
    return CrossEntropyFunction.apply(x, labels, label_smoothing, ignore_index)


def reference(x: torch.Tensor, labels: torch.Tensor, label_smoothing: float = 0.0,
              ignore_index: int = IGNORE_INDEX) -> torch.Tensor:
    # an ignored row's logits take no part: torch's own gradient there is 0 * softmax, NaN for a row holding NaN
    ignored = (labels == ignore_index)[:, None]
    x = torch.where(ignored, torch.zeros((), dtype=x.dtype, device=x.device), x)
    return torch.nn.functional.cross_entropy(x, labels, ignore_index=ignore_index, reduction="none",
                                             label_smoothing=label_smoothing)


def labels(ctx: kcheck.CaseContext) -> torch.Tensor:
    """Random classes in [0, V), about a quarter of the rows set to the case's ignore_index."""
    T, V = ctx.dims["T"], ctx.dims["V"]
    y = ctx.randint(0, V, (T,))
    ignored = ctx.rand(T, dtype=torch.float32) < 0.25
    return torch.where(ignored, torch.full_like(y, ctx.params["ignore_index"]), y)


spec = kcheck.Spec(
    name="train_cross_entropy",
    kernel=cross_entropy,
    reference=reference,
    inputs=[kcheck.Tensor("T", "V", name="logits"), kcheck.Custom(labels, name="labels", dims=("T",))],
    dims={"T": kcheck.Dim(nominal=64, real=()), "V": kcheck.Dim(nominal=512, min=1, max=8192, real=())},
    reduce=["V"],
    output_dtypes=[torch.float32],
    params={"label_smoothing": [0.0, 0.1], "ignore_index": [IGNORE_INDEX, 0]},
    grad=True,
)
