"""The no-op guard: would zeros, an input, or a constant pass this check?

A check that cannot tell a broken kernel from a right one is a defect of the check. For each output, kcheck tries
the outputs a kernel that did nothing would produce (zeros, any input of the same shape, the mean as a constant)
against the same tolerance. A candidate that passes makes the case *weak* (a warning); a kernel whose output is
*exactly* such a candidate on a weak case, while the true answer differs from it, is caught as a no-op (a failure).
On any case, an output that is exactly a candidate the true answer differs from is reported as ``identical``: a case
that fails its comparison anyway was still not computed (a launcher that returns its input), which the debugger
needs to know.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import torch

from ._compare import expected_in, mismatch_mask
from ._tolerance import Tolerance


@dataclass(frozen=True)
class NoopVerdict:
    weak: tuple[str, ...]  # candidates that would pass this check
    caught: str | None  # the candidate the kernel's output is identical to, when that makes it a no-op
    identical: str | None = None  # the candidate the output is exactly, weak case or not (the true answer differs)


def _candidates(expected: torch.Tensor, inputs: Sequence[object],
                dtype: torch.dtype) -> Iterator[tuple[str, torch.Tensor]]:
    yield "zeros", torch.zeros_like(expected)
    for i, x in enumerate(inputs):
        if isinstance(x, torch.Tensor) and x.is_floating_point() and tuple(x.shape) == tuple(expected.shape):
            yield f"input {i} unchanged", x.detach().to(device=expected.device, dtype=dtype).to(torch.float64)
    finite = expected[torch.isfinite(expected)]
    if finite.numel():
        yield "a constant", torch.full_like(expected, float(finite.mean())).to(dtype).to(torch.float64)


#: Above this many elements the guard is skipped (its candidates would cost several float64 copies); the smaller
#: cases of the same Spec carry the guard.
MAX_ELEMENTS = 2**26


def noop_guard(actual: torch.Tensor, expected: torch.Tensor, tol: Tolerance, inputs: Sequence[object]) -> NoopVerdict:
    if not 0 < actual.numel() <= MAX_ELEMENTS or not actual.dtype.is_floating_point:
        return NoopVerdict((), None)
    if tuple(actual.shape) != tuple(expected.shape):
        return NoopVerdict((), None)
    e = expected.detach().to(device=actual.device, dtype=torch.float64)
    e_r = expected_in(e, actual.dtype)
    a = actual.detach().to(torch.float64)
    weak: list[str] = []
    caught = identical = None
    n = e.numel()
    for name, cand in _candidates(e, inputs, actual.dtype):
        same = bool(((a == cand) | (torch.isnan(a) & torch.isnan(cand))).all())
        passes = not bool(mismatch_mask(cand, e, tol, e_r).any())
        if not (same or passes):
            continue
        differs = int((~((cand == e_r) | (torch.isnan(cand) & torch.isnan(e_r)))).sum())
        if differs == 0:  # the true answer *is* this candidate (zeros in, zeros out): nothing to tell apart
            continue
        exactly = same and differs >= max(1, n // 100)
        if exactly and identical is None:
            identical = name
        if not passes:
            continue
        weak.append(name)
        if exactly and caught is None:
            caught = name
    return NoopVerdict(tuple(weak), caught, identical)
