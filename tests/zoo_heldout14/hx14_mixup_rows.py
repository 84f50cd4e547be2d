"""Mixup of a batch with a permutation of itself: out[i] = lam * x[i] + (1 - lam) * x[perm[i]].

The data loader draws ``perm`` (a permutation of the batch) and ``lam`` per step; the kernel blends every sample with
its partner in one pass. A flat 1-D grid walks the [M, N] output in BLOCK-element pieces; each lane finds its row,
looks up the partner row in ``perm`` and reads both rows through the input's strides, so a sliced batch needs no copy.
Offsets are int64 (M * N may pass 2**31).
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "edge-guard"


@triton.jit
def mixup_kernel(x_ptr, perm_ptr, out_ptr, total, N, stride_xm, stride_xn, lam, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    inside = offs < total
    row = offs // N
    col = offs % N
    partner = tl.load(perm_ptr + row)
    a = tl.load(x_ptr + row * stride_xm + col * stride_xn, mask=inside, other=0.0).to(tl.float32)
    b = tl.load(x_ptr + partner * stride_xm + col * stride_xn, mask=inside, other=0.0).to(tl.float32)
    y = lam * a + (1.0 - lam) * b
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=inside)


def mixup(x: torch.Tensor, perm: torch.Tensor, lam: float = 0.7, BLOCK: int = 1024) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    total = M * N
    if total == 0:
        return out
    mixup_kernel[(triton.cdiv(total, BLOCK),)](x, perm, out, total, N, x.stride(0), x.stride(1), lam, BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor, perm: torch.Tensor, lam: float = 0.7) -> torch.Tensor:
    return lam * x + (1.0 - lam) * x[perm]


def _perm(ctx: kcheck.CaseContext) -> torch.Tensor:
    return ctx.randperm(ctx.dims["M"])


spec = kcheck.Spec(
    name="hx14_mixup_rows",
    kernel=mixup,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Custom(_perm, name="perm", dims=("M",))],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=512)},
    params={"lam": [0.7, 0.25]},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)
