"""Compare one kernel output against its float64 reference: metrics, mismatches, location, baseline rule.

Every figure is computed in float64 on the device the output lives on. An expected value that overflows the output
dtype is expected as the matching infinity (a correct fp16 kernel returns inf for 1e6); NaN must appear exactly
where the reference has NaN.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import torch

from .._dtypes import ulp_spacing
from ._fused import fused_figures
from ._locate import (
    Confined,
    EdgeBand,
    Location,
    ValueBand,
    confined,
    edge_band,
    locate,
    slice_hits,
    value_band,
)
from ._tolerance import Tolerance

_SHOWN = 5
_CHUNK = 1 << 24


@dataclass(frozen=True)
class Mismatch:
    index: tuple[int, ...]
    actual: float
    expected: float


@dataclass(frozen=True)
class BaselineCheck:
    """FlashAttention's rule: max|kernel - ref| <= factor * max|baseline - ref| + floor, where the baseline is the
    framework's own result in the case's precision and floor = (eps(out) + sqrt(n) eps_acc) * rms(ref).

    ``required``: the rule is a requirement (bf16, fp16, fp8: catches precision bugs the table is too loose for).
    Either way, when the baseline itself fails the tolerance (an ill-conditioned case: fp32 layernorm of data with
    mean 1e4 and spread 1), a kernel within the rule is *forgiven* its finite mismatches (``forgave``).
    """

    kernel_max_abs: float
    baseline_max_abs: float
    factor: float
    floor: float
    passed: bool
    required: bool = True
    baseline_mismatches: int = 0
    forgave: bool = False

    @property
    def allowed(self) -> float:
        return self.factor * self.baseline_max_abs + self.floor


@dataclass
class Comparison:
    """The comparison of one output. ``reasons`` says in words why it failed (empty when it passed)."""

    output: str
    shape: tuple[int, ...]
    dtype: str
    passed: bool
    tolerance: Tolerance
    numel: int = 0
    mismatches: int = 0
    max_abs: float = 0.0
    max_abs_index: tuple[int, ...] | None = None
    worst: Mismatch | None = None  # the element of greatest absolute difference (finite elements)
    max_rel: float = 0.0
    max_rel_index: tuple[int, ...] | None = None
    rel_l2: float = 0.0
    max_ulp: float = 0.0
    nan_mismatches: int = 0
    inf_mismatches: int = 0
    unwritten: int = 0
    first: list[Mismatch] = field(default_factory=list)
    location: Location = field(default_factory=lambda: Location("none", "no mismatches"))
    confined: Confined | None = None  # the errors keep to some slices of a dimension (see ``confined``)
    edge_band: EdgeBand | None = None  # the errors keep to a band at one end of a dimension (see ``edge_band``)
    value_band: ValueBand | None = None  # the errors are the elements of some values of an input (``value_band``)
    baseline: BaselineCheck | None = None
    reasons: list[str] = field(default_factory=list)

    @property
    def mismatch_fraction(self) -> float:
        return self.mismatches / self.numel if self.numel else 0.0


def _unravel(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    out = []
    for s in reversed(shape):
        out.append(flat % s if s else 0)
        flat = flat // s if s else 0
    return tuple(reversed(out))


def _first_true(mask: torch.Tensor, k: int) -> list[int]:
    """Flat indices of the first ``k`` True elements, scanning in chunks (no giant nonzero() on 2**31 elements)."""
    flat = mask.reshape(-1)
    found: list[int] = []
    for start in range(0, flat.numel(), _CHUNK):
        part = flat[start:start + _CHUNK].nonzero().view(-1)[: k - len(found)]
        found += [start + int(i) for i in part]
        if len(found) >= k:
            break
    return found


def expected_in(expected: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """The reference as the output dtype can hold it (float64 values; overflow becomes the matching infinity)."""
    if not dtype.is_floating_point:
        return expected
    return expected.to(dtype).to(torch.float64)


def mismatch_mask(actual: torch.Tensor, expected: torch.Tensor, tol: Tolerance,
                  expected_rounded: torch.Tensor | None = None) -> torch.Tensor:
    """True where ``actual`` is not close to ``expected`` (both float64, same shape)."""
    e_r = expected if expected_rounded is None else expected_rounded
    a, e = actual, expected
    nan_a, nan_e = torch.isnan(a), torch.isnan(e_r)
    inf_any = torch.isinf(a) | torch.isinf(e_r)
    finite = ~(nan_a | nan_e | inf_any)
    diff = (a - e).abs()
    bad = finite & (diff > tol.atol + tol.rtol * e.abs())
    bad |= nan_a != nan_e
    bad |= inf_any & ~nan_a & ~nan_e & (a != e_r)
    return bad


def _wider(a: torch.dtype, b: torch.dtype) -> bool:
    """Whether floating dtype ``a`` holds more mantissa bits than floating dtype ``b``."""
    return a.is_floating_point and b.is_floating_point and torch.finfo(a).eps < torch.finfo(b).eps


def compare(name: str, actual: torch.Tensor, expected: torch.Tensor, tol: Tolerance, *,
            unwritten: torch.Tensor | None = None, baseline: torch.Tensor | None = None,
            baseline_factor: float = 2.0, baseline_required: bool = True, accumulate: float = 0.0,
            input_scale: float = 0.0, inputs: Sequence[object] = ()) -> Comparison:
    """Compare ``actual`` (the kernel's output) with ``expected`` (float64 reference) under ``tol``.

    Works through the flattened tensors in chunks of 2**24 elements, so that a 2**31-element output needs only
    its boolean mismatch mask in full (for the location), not a dozen float64 temporaries. ``baseline`` is the
    framework's result in the case's precision (see BaselineCheck); ``accumulate`` = sqrt(n) * eps_acc;
    ``input_scale`` replaces rms(expected) in the baseline's floor where the expected output is exactly zero (as
    in the tolerance's absolute floor). A baseline wider than ``actual`` is rounded to its dtype first. ``inputs``:
    the case's inputs, for the band of values the wrong elements hold (``ValueBand``).
    """
    shape = tuple(actual.shape)
    cmp = Comparison(name, shape, str(actual.dtype).removeprefix("torch."), True, tol, numel=actual.numel())
    if tuple(expected.shape) != shape:
        cmp.passed = False
        cmp.reasons.append(f"shape mismatch: kernel returned {list(shape)}, reference {list(expected.shape)}")
        return cmp
    if actual.numel() == 0:
        return cmp
    acc = _Accumulator(actual.dtype)
    flat_a = actual.detach().reshape(-1)
    flat_e = expected.detach().reshape(-1)
    flat_u = unwritten.reshape(-1) if unwritten is not None else None
    if baseline is not None and _wider(baseline.dtype, actual.dtype):
        # the framework's result stored in the output's dtype: a reference that promotes (torch.where of Python
        # floats is fp32) computes wider than the case's precision, and its unrounded values are no same-precision
        # result the kernel's could match
        baseline = baseline.to(actual.dtype)
    flat_b = baseline.detach().reshape(-1) if baseline is not None else None
    bad = torch.zeros(actual.numel(), dtype=torch.bool, device=actual.device)
    fused = fused_figures(flat_a, flat_e, tol, flat_u, flat_b, bad, min_elements=2 * _CHUNK)
    if fused is not None:  # a large output on a GPU: one pass (compare/_fused.py)
        acc.fold(0, fused, flat_u is not None, flat_b is not None)
    for start in range(0, actual.numel() if fused is None else 0, _CHUNK):
        sl = slice(start, start + _CHUNK)
        a = flat_a[sl].to(torch.float64)
        e = flat_e[sl].to(device=a.device, dtype=torch.float64)
        bad[sl] = acc.add(start, a, e, tol, None if flat_u is None else flat_u[sl],
                          None if flat_b is None else flat_b[sl])
    acc.finish(cmp, shape)
    if cmp.max_abs_index is not None:
        at = acc.max_abs_at
        cmp.worst = Mismatch(cmp.max_abs_index, float(flat_a[at]), float(flat_e[at]))
    if cmp.mismatches:
        cmp.passed = False
        cmp.first = [Mismatch(_unravel(i, shape), float(flat_a[i]), float(flat_e[i]))
                     for i in _first_true(bad, _SHOWN)]
        m = bad.reshape(shape)
        cmp.location = locate(m)
        hits = slice_hits(m)
        cmp.confined = confined(m, hits)
        cmp.edge_band = edge_band(m, hits)
        cmp.value_band = value_band(m, inputs)
        cmp.reasons.append(f"{cmp.mismatches} of {cmp.numel} elements outside the tolerance")
        if cmp.unwritten:
            cmp.reasons.append(f"{cmp.unwritten} elements never written (still hold the poison value)")
    if baseline is not None:
        b = cmp.baseline = acc.baseline_check(baseline_factor, accumulate, baseline_required, input_scale)
        only_finite = cmp.unwritten == 0 and cmp.nan_mismatches == 0 and cmp.inf_mismatches == 0
        if cmp.mismatches and only_finite and b.baseline_mismatches and b.passed:
            cmp.passed, cmp.reasons = True, []
            cmp.baseline = replace(b, forgave=True)
        elif required_failed(b):
            cmp.passed = False
            cmp.reasons.append(f"error {b.kernel_max_abs:.3g} exceeds {b.factor:g} x the same-precision baseline's "
                               f"{b.baseline_max_abs:.3g} (+ {b.floor:.2g})")
    return cmp


def required_failed(b: BaselineCheck) -> bool:
    return b.required and not b.passed


class _Accumulator:
    """Running figures over chunks of the flattened output."""

    def __init__(self, dtype: torch.dtype) -> None:
        self.dtype = dtype
        self.mismatches = self.unwritten = self.nan = self.inf = 0
        self.max_abs, self.max_abs_at = -1.0, 0
        self.max_rel, self.max_rel_at = -1.0, 0
        self.sq_diff = self.sq_e = 0.0
        self.max_ulp = 0.0
        self.k_err = self.b_err = 0.0
        self.sq_both, self.n_both = 0.0, 0
        self.b_bad = 0

    def add(self, start: int, a: torch.Tensor, e: torch.Tensor, tol: Tolerance, unwritten: torch.Tensor | None,
            b: torch.Tensor | None) -> torch.Tensor:
        """Fold one chunk (float64 ``a`` and ``e``) into the figures; return its mismatch mask.

        Each elementwise term is computed once and shared (the mask's and the metrics' NaN, infinity and
        difference terms), and the chunk's figures come back to the host in one transfer: on a GPU a 2**31-element
        output is 128 chunks, and every separate pass or ``.item()`` there is paid 128 times."""
        e_r = expected_in(e, self.dtype)
        nan_a, nan_e = torch.isnan(a), torch.isnan(e_r)
        inf_a, inf_er = torch.isinf(a), torch.isinf(e_r)
        inf_any = inf_a | inf_er
        neither_nan = ~(nan_a | nan_e)
        d = (a - e).abs()
        abs_e = e.abs()
        bad = neither_nan & ~inf_any & (d > tol.atol + tol.rtol * abs_e)
        nan_diff = nan_a != nan_e
        bad |= nan_diff
        inf_bad = inf_any & neither_nan & (a != e_r)
        bad |= inf_bad
        figures: list[torch.Tensor] = []
        if unwritten is not None:
            figures.append(torch.count_nonzero(unwritten))
            bad |= unwritten
            nan_diff &= ~unwritten
        figures += [torch.count_nonzero(bad), torch.count_nonzero(nan_diff), torch.count_nonzero(inf_bad)]
        finite = ~(nan_a | inf_a) & torch.isfinite(e)
        zero = torch.zeros((), dtype=torch.float64, device=a.device)
        diff = torch.where(finite, d, zero)
        i_abs = diff.argmax()
        # where not finite diff is 0, so rel is 0 there without a mask of its own
        rel = torch.where(abs_e > 0, diff / abs_e.clamp_min(1e-300), torch.where(diff > 0, math.inf, 0.0))
        i_rel = rel.argmax()
        e_f = torch.where(finite, e, zero)
        figures += [i_abs, diff.gather(0, i_abs.view(1))[0], i_rel, rel.gather(0, i_rel.view(1))[0],
                    (diff * diff).sum(), (e_f * e_f).sum()]
        if self.dtype.is_floating_point:
            figures.append((diff / ulp_spacing(e_f, self.dtype)).max())
        if b is not None:
            bf = b.to(device=a.device, dtype=torch.float64)
            nan_b = torch.isnan(bf)
            inf_b = torch.isinf(bf)
            d_b = (bf - e).abs()
            b_bad = ~(nan_b | nan_e) & ~(inf_b | inf_er) & (d_b > tol.atol + tol.rtol * abs_e)
            b_bad |= nan_b != nan_e
            b_bad |= (inf_b | inf_er) & ~nan_b & ~nan_e & (bf != e_r)
            both = finite & ~(nan_b | inf_b)
            eb = torch.where(both, e, zero)
            figures += [torch.count_nonzero(b_bad), torch.where(both, diff, zero).max(),
                        torch.where(both, d_b, zero).max(), (eb * eb).sum(), torch.count_nonzero(both)]
        self.fold(start, torch.stack([f.to(torch.float64) for f in figures]).tolist(),  # one transfer per chunk
                  unwritten is not None, b is not None)
        return bad

    def fold(self, start: int, values: list[float], unwritten: bool, baseline: bool) -> None:
        """Fold one chunk's figures, in the order ``add`` lists them (the fused route's too), into the totals;
        ``unwritten`` and ``baseline``: whether the poison mask's count and the baseline's figures are among them."""
        got = iter(values)
        if unwritten:
            self.unwritten += int(next(got))
        self.mismatches += int(next(got))
        self.nan += int(next(got))
        self.inf += int(next(got))
        at, value = int(next(got)), next(got)
        if value > self.max_abs:
            self.max_abs, self.max_abs_at = value, start + at
        at, value = int(next(got)), next(got)
        if value > self.max_rel:
            self.max_rel, self.max_rel_at = value, start + at
        self.sq_diff += next(got)
        self.sq_e += next(got)
        if self.dtype.is_floating_point:
            self.max_ulp = max(self.max_ulp, next(got))
        if baseline:
            self.b_bad += int(next(got))
            self.k_err = max(self.k_err, next(got))
            self.b_err = max(self.b_err, next(got))
            self.sq_both += next(got)
            self.n_both += int(next(got))

    def finish(self, cmp: Comparison, shape: tuple[int, ...]) -> None:
        cmp.mismatches, cmp.unwritten = self.mismatches, self.unwritten
        cmp.nan_mismatches, cmp.inf_mismatches = self.nan, self.inf
        if self.max_abs >= 0:
            cmp.max_abs, cmp.max_abs_index = self.max_abs, _unravel(self.max_abs_at, shape)
            cmp.max_rel, cmp.max_rel_index = self.max_rel, _unravel(self.max_rel_at, shape)
        norm_e, norm_d = math.sqrt(self.sq_e), math.sqrt(self.sq_diff)
        cmp.rel_l2 = norm_d / norm_e if norm_e > 0 else (0.0 if norm_d == 0 else math.inf)
        cmp.max_ulp = self.max_ulp

    def baseline_check(self, factor: float, accumulate: float, required: bool,
                       input_scale: float = 0.0) -> BaselineCheck:
        scale = math.sqrt(self.sq_both / self.n_both) if self.n_both else 0.0
        if scale == 0 and self.sq_e == 0:  # the expected output is exactly zero: the inputs' scale
            scale = input_scale
        eps = float(torch.finfo(self.dtype).eps) if self.dtype.is_floating_point else 0.0
        # a GPU computing in fp32 flushes subnormal results to zero (FTZ) where the framework may keep them: a
        # difference below fp32's smallest normal (in the output's dtype, at most its own) is no worse arithmetic
        tiny = min(float(torch.finfo(self.dtype).tiny), float(torch.finfo(torch.float32).tiny)) \
            if self.dtype.is_floating_point else 0.0
        floor = (eps + accumulate) * scale + tiny
        return BaselineCheck(self.k_err, self.b_err, factor, floor, self.k_err <= factor * self.b_err + floor,
                             required, self.b_bad)


