"""Kernels for validating ``kcheck bench`` on a GPU: a memory-bound Triton scale (y = 2x) at a size that takes
>= 50 us on an H200 and at one that takes a few microseconds, and a planted slowdown of the large one (the same
launch plus the kernel again over 15% of the input).

Module-level Specs, so ``python -m kcheck.bench scripts/gpu/bench_kernels.py`` times them too.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

import kcheck
import kcheck.bench

#: 2**26 fp32 elements: 512 MiB read and written, about 110 us at the H200's ~4.8 TB/s.
BIG = 1 << 26
#: 2**20 fp32 elements: 8 MiB read and written, about 5 us (2**21 took 7.9 us on an H200).
SMALL = 1 << 20
#: The planted slowdown: this fraction of the input is processed a second time.
PLANTED = 0.15


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)


def scale(x: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    y = torch.empty_like(x)
    if x.numel():
        scale_kernel[(triton.cdiv(x.numel(), BLOCK),)](x, y, x.numel(), BLOCK=BLOCK)
    return y


def scale_slow(x: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    """``scale`` with a planted slowdown: the kernel runs again over the first 15% of the input."""
    y = scale(x, BLOCK)
    part = int(x.numel() * PLANTED)
    if part:
        scratch = torch.empty(part, dtype=x.dtype, device=x.device)
        scale_kernel[(triton.cdiv(part, BLOCK),)](x, scratch, part, BLOCK=BLOCK)
    return y


def _reference(x: torch.Tensor) -> torch.Tensor:
    return x * 2


def _spec(name: str, nominal: int, kernel: object = scale) -> kcheck.Spec:
    return kcheck.Spec(name=name, kernel=kernel, reference=_reference, inputs=[kcheck.Tensor("N")],  # type: ignore
                       dims={"N": kcheck.Dim(nominal=nominal)}, dtypes=["fp32"], configs=[{"BLOCK": 1024}])


scale_big = _spec("scale_big", BIG)
scale_small = _spec("scale_small", SMALL)
_COST = kcheck.bench.Cost(bytes=lambda c: 2 * c["N"] * c.itemsize, flops=lambda c: c["N"])
kcheck.bench.configure(scale_big, cost=_COST)
kcheck.bench.configure(scale_small, cost=_COST)


def planted(spec: kcheck.Spec) -> kcheck.Spec:
    """``spec`` with the slow kernel: same name and cases, so its timings meet the fast kernel's baselines."""
    slow = _spec(spec.name, spec.dim("N").nominal, scale_slow)
    kcheck.bench.configure(slow, cost=_COST)
    return slow
