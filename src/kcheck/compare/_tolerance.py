"""The tolerance model: per-precision table, accumulation-aware widening, scale-aware absolute floor.

For an output of dtype D in a case of precision P, with reduction length n (the product of the Spec's ``reduce``
dimensions) and expected values e (float64)::

    rtol = max(table[P], eps(D), sqrt(n) * eps_accumulate(P), 4 * eps_operand(P))
    atol = rtol * scale           (at least the smallest normal of D)
    scale = rms(e), or, where e is exactly zero everywhere, rms(x) over every finite element of the floating inputs
            (or the same output's rms on randn inputs of the same sizes, where that is larger)

- ``table[P]`` is the default table (fp32 1e-5, tf32 1e-3, bf16/fp16 1e-2, fp8 5e-2, fp64 1e-10);
- ``eps(D)`` is one unit in the last place of the output: a correctly rounded result may be half an ulp off, and a
  tolerance under that would fail every correct fp8 kernel (eps 0.125 > 5e-2);
- ``sqrt(n) * eps`` is the growth of independent rounding errors over a sum of n terms;
- ``4 * eps_operand`` is for tf32, whose operands lose 13 mantissa bits before each product: Triton truncates
  them, so one product is off by up to 2 eps (2e-3), and over thousands of outputs the worst error reached 3.3 eps
  of rms(C) on an H200 (cuBLAS, which rounds to nearest: 1.2 eps). The table's 1e-3 would fail every correct
  Triton tf32 GEMM;
- the absolute floor is relative to the output's typical magnitude, so an element that cancels to near zero is
  judged against the scale of the terms that produced it, not against itself;
- an output that is exactly zero everywhere (a cross-entropy over one class, a difference of equal terms) has no
  magnitude of its own: its floor comes from the inputs' scale, the scale of the terms a kernel combines to reach
  that zero, so a correct kernel's rounding (1e-7 of fp32 inputs of size 1) passes and a real error (1e-2) fails.
  Only an all-zero expected output takes this path; any other output keeps its own scale;
- an output can also be zero because of the data alone: a distance between points that coincide ('ones' or 'eye'
  data), in km. Its typical magnitude (thousands of km) is not the inputs' (radians): a correct kernel's fp32
  rounding of the angle, 1e-7 rad, is 6e-4 km there, far above 1e-5 x rms(inputs). Where the inputs' scale fails
  such an output, the runner asks the reference for the same output on randn inputs of the same case (``typical``):
  the larger of the two scales is the output's. An output that is zero on randn inputs too (x - x) keeps the
  inputs' scale.

Integer outputs are compared exactly. A user's ``rtol``/``atol`` replace the computed values.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import torch

from .._dtypes import PRECISIONS


@dataclass(frozen=True)
class Tolerance:
    rtol: float
    atol: float
    source: str  # how the figures were reached, shown in reports

    @property
    def exact(self) -> bool:
        return self.rtol == 0 and self.atol == 0


def _pick(value: float | Mapping[str, float] | None, precision: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, Mapping):
        return value.get(precision)
    return float(value)


def reduction_length(reduce: tuple[str, ...], sizes: Mapping[str, int]) -> int:
    return max(1, math.prod(sizes[d] for d in reduce))


def _squares(values: torch.Tensor, chunk: int = 1 << 24) -> tuple[float, float, int]:
    """The finite values of a tensor as (scale, sum of (value / scale)**2, count), in float64 and in chunks,
    accumulated on the tensor's device (one transfer at the end). Scaled by the largest magnitude, as BLAS's nrm2
    does: squares of values past 1e154 overflow float64, and an infinite rms would make the absolute tolerance
    infinite, passing any finite value."""
    flat = values.reshape(-1)
    scale = torch.zeros((), dtype=torch.float64, device=values.device)
    total = torch.zeros((), dtype=torch.float64, device=values.device)
    count = torch.zeros((), dtype=torch.int64, device=values.device)
    zero = torch.zeros((), dtype=torch.float64, device=values.device)
    for start in range(0, flat.numel(), chunk):
        part = flat[start:start + chunk].to(torch.float64)
        finite = torch.isfinite(part)
        part = torch.where(finite, part, zero).abs()
        top = torch.maximum(scale, part.max())  # (a chunk of range() is never empty)
        safe = torch.where(top > 0, top, torch.ones_like(top))
        total = total * (scale / safe) ** 2 + ((part / safe) ** 2).sum()
        scale = top
        count += torch.count_nonzero(finite)
    return float(scale), float(total), int(count)


def _combined(parts: Sequence[tuple[float, float, int]]) -> float:
    """The rms of several ``_squares`` results together (0 when they hold no finite value)."""
    count = sum(c for _, _, c in parts)
    top = max((s for s, _, _ in parts), default=0.0)
    if not count or top == 0:
        return 0.0
    return top * math.sqrt(sum(t * (s / top) ** 2 for s, t, _ in parts) / count)


def rms(values: torch.Tensor, chunk: int = 1 << 24) -> float:
    """Root mean square of the finite values of a tensor, in float64 and in chunks (0 when there are none); finite
    whenever the values are."""
    return _combined([_squares(values, chunk)])


def rms_of_inputs(args: Sequence[object]) -> float:
    """Root mean square over every finite element of the floating tensors in ``args`` together (0 when none)."""
    return _combined([_squares(a) for a in args if isinstance(a, torch.Tensor) and a.is_floating_point()])


def tolerance_for(precision: str, out_dtype: torch.dtype, n: int, scale: float, *,
                  rtol: float | Mapping[str, float] | None = None,
                  atol: float | Mapping[str, float] | None = None,
                  input_scale: float | Callable[[], float] = 0.0, typical: float = 0.0) -> Tolerance:
    """The tolerance of one output (see the module docstring). ``scale`` is rms(expected); ``input_scale`` (a
    number, or a function computing it, called only when needed) is the inputs' rms, used when ``scale`` is 0;
    ``typical`` is the same output's rms on randn inputs of the case, used when ``scale`` is 0 and it is larger."""
    if not out_dtype.is_floating_point:
        return Tolerance(0.0, 0.0, f"exact ({out_dtype} output)")
    prec = PRECISIONS[precision]
    user_rtol, user_atol = _pick(rtol, precision), _pick(atol, precision)
    out_eps = float(torch.finfo(out_dtype).eps)
    acc = math.sqrt(n) * prec.accumulate_eps
    operand = 4 * prec.operand_eps
    if user_rtol is not None:
        r, why = user_rtol, f"rtol={user_rtol:g} (spec)"
    else:
        r = max(prec.rtol, out_eps, acc, operand)
        why = f"{precision} table {prec.rtol:g}"
        if r == out_eps and out_eps > prec.rtol:
            why += f"; raised to one ulp of {str(out_dtype).removeprefix('torch.')} ({out_eps:g})"
        elif r == acc and acc > prec.rtol:
            why += f"; raised for a reduction of {n} terms: sqrt({n})*{prec.accumulate_eps:.2g} = {acc:.2g}"
        elif r == operand and operand > prec.rtol:
            why += f"; raised for {precision} operands: 4*{prec.operand_eps:.2g} = {operand:.2g}"
    if user_atol is not None:
        a, awhy = user_atol, f"atol={user_atol:g} (spec)"
    else:
        awhy = f"atol = rtol x rms(expected) = {r:.2g} x {scale:.3g}"
        if scale == 0:
            scale = input_scale() if callable(input_scale) else input_scale
            awhy = f"atol = rtol x rms(inputs) = {r:.2g} x {scale:.3g} (the expected output is exactly zero)"
            if typical > scale:
                scale = typical
                awhy = (f"atol = rtol x rms(this output on randn inputs) = {r:.2g} x {scale:.3g} (the expected "
                        "output is exactly zero on this data; the inputs' rms is smaller)")
        a = max(r * scale, float(torch.finfo(out_dtype).tiny))
    return Tolerance(r, a, f"{why}; {awhy}")
