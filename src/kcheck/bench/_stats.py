"""Statistics of timings: a sample's summary, and the verdict of a new sample against a baseline.

A regression is a slowdown past the margin that a rank test finds significant: the one-sided Mann-Whitney U test
(``scipy.stats.mannwhitneyu``) of the new times against the baseline's times scaled by ``1 + margin``, on log times.
Its null hypothesis is "the new kernel is at most ``margin`` slower", so a same-speed kernel is flagged far less
often than ``alpha`` and a kernel ``margin`` slower at most at rate ``alpha``. The ratio reported is the
Hodges-Lehmann estimate of the shift of the log times (the median of all pairwise differences), exponentiated, with
the distribution-free confidence interval that inverts the same rank test (Hollander, Wolfe and Chicken,
*Nonparametric Statistical Methods*, 3rd ed., section 4.3). A speed-up is the mirror image: faster by more than
the margin, significantly.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .._errors import SpecError

#: The largest sample the Hodges-Lehmann estimate works on (larger ones are reduced to this many evenly spaced
#: quantiles: the pairwise differences of two samples of n grow as n**2).
HL_MAX = 1000


@dataclass(frozen=True)
class Summary:
    """A timing sample in milliseconds: its size, median, mean, interquartile mean, spread (coefficient of variation,
    and the interquartile range relative to the median) and extremes. The interquartile mean (the mean of the middle
    half) is the reported time: as robust as the median to a stray slow run, and steadier than it when the device's
    timer quantizes the samples into a few values (CUDA events tick at about 0.5 us: on an H200 the median of a
    130 us kernel flipped between two ticks from run to run)."""

    n: int
    median_ms: float
    mean_ms: float
    cv: float
    iqr_rel: float
    min_ms: float
    max_ms: float
    iqm_ms: float = 0.0

    @classmethod
    def of(cls, samples: Sequence[float]) -> Summary:
        x = _as_times(samples, "samples")
        q1, med, q3 = np.quantile(x, [0.25, 0.5, 0.75])
        mean = float(x.mean())
        cv = float(x.std(ddof=1) / mean) if x.size > 1 and mean > 0 else 0.0
        middle = x[(x >= q1) & (x <= q3)]
        iqm = float(middle.mean()) if middle.size else float(med)
        return cls(int(x.size), float(med), mean, cv, float((q3 - q1) / med) if med > 0 else 0.0, float(x.min()),
                   float(x.max()), iqm)


class Change(str, enum.Enum):
    UNCHANGED = "unchanged"  # within the margin, or a change the rank test does not find significant
    REGRESSION = "regression"  # slower by more than the margin, significantly
    SPEEDUP = "speedup"  # faster by more than the margin, significantly


@dataclass(frozen=True)
class Comparison:
    """A new sample against a baseline: the ratio new/baseline (Hodges-Lehmann) and its confidence interval, the
    ratio of the medians, the one-sided p-values of "slower by more than the margin" and "faster by more than the
    margin", and the verdict."""

    ratio: float
    ci_low: float
    ci_high: float
    confidence: float
    median_ratio: float
    p_slower: float
    p_faster: float
    margin: float
    alpha: float
    change: Change

    def describe(self) -> str:
        pct = (self.ratio - 1) * 100
        what = {Change.REGRESSION: "REGRESSION", Change.SPEEDUP: "speed-up", Change.UNCHANGED: "unchanged"}
        p = self.p_slower if self.ratio >= 1 else self.p_faster
        return (f"{what[self.change]}: x{self.ratio:.3f} ({pct:+.1f}%), {self.confidence:.0%} CI "
                f"[{self.ci_low:.3f}, {self.ci_high:.3f}], margin {self.margin:.0%}, p={p:.2g} (alpha {self.alpha:g})")


def _as_times(samples: Sequence[float], what: str) -> np.ndarray:
    x = np.asarray(samples, dtype=np.float64).ravel()
    if x.size == 0:
        raise SpecError(what, list(samples), "give at least one timing")
    if not np.all(np.isfinite(x)) or np.any(x <= 0):
        raise SpecError(what, "a non-positive or non-finite time", "timings are positive, finite milliseconds")
    return x


def reduce_sample(samples: Sequence[float] | np.ndarray, size: int) -> np.ndarray:
    """At most ``size`` values that keep the sample's distribution: the sample itself when small enough, else its
    ``size`` evenly spaced quantiles (sorted)."""
    x = np.sort(np.asarray(samples, dtype=np.float64).ravel())
    if x.size <= size:
        return x
    return np.quantile(x, (np.arange(size) + 0.5) / size)


def hodges_lehmann(x: np.ndarray, y: np.ndarray, confidence: float) -> tuple[float, float, float]:
    """Hodges-Lehmann estimate of the shift x - y (the median of all pairwise differences) and its distribution-free
    confidence interval (the order statistics of the differences given by the normal approximation of the
    Mann-Whitney U distribution)."""
    x, y = reduce_sample(x, HL_MAX), reduce_sample(y, HL_MAX)
    d = (x[:, None] - y[None, :]).ravel()
    n, m = x.size, y.size
    total = d.size
    from scipy import stats  # type: ignore[import-untyped]  # heavy (1.5 s): loaded when a verdict is computed

    z = stats.norm.ppf(0.5 + confidence / 2)
    k = math.floor(n * m / 2 - z * math.sqrt(n * m * (n + m + 1) / 12))
    k = min(max(k, 0), (total - 1) // 2)
    lo_i, hi_i, mid = k, total - 1 - k, total // 2
    idx = sorted({lo_i, hi_i, mid, (total - 1) // 2})
    part = np.partition(d, idx)
    est = float(part[mid]) if total % 2 else float((part[mid] + part[(total - 1) // 2]) / 2)
    return est, float(part[lo_i]), float(part[hi_i])


def compare(baseline: Sequence[float], new: Sequence[float], *, margin: float = 0.10, alpha: float = 0.01,
            confidence: float = 0.95) -> Comparison:
    """The verdict of ``new`` timings against ``baseline`` timings (milliseconds; see the module docstring)."""
    if not (isinstance(margin, (int, float)) and 0 <= margin < 10):
        raise SpecError("margin", margin, "give a fraction such as 0.10 (10%)")
    if not (isinstance(alpha, (int, float)) and 0 < alpha < 0.5):
        raise SpecError("alpha", alpha, "give a significance level such as 0.01")
    if not (isinstance(confidence, (int, float)) and 0 < confidence < 1):
        raise SpecError("confidence", confidence, "give a level such as 0.95")
    b = np.log(_as_times(baseline, "baseline"))
    x = np.log(_as_times(new, "new"))
    shift = math.log1p(margin)
    if b.size < 2 or x.size < 2:
        p_slower = p_faster = 1.0
    else:
        from scipy import stats  # type: ignore[import-untyped]  # heavy: loaded when a verdict is computed

        p_slower = float(stats.mannwhitneyu(x - shift, b, alternative="greater").pvalue)
        p_faster = float(stats.mannwhitneyu(x + shift, b, alternative="less").pvalue)
    est, lo, hi = hodges_lehmann(x, b, confidence)
    ratio = math.exp(est)
    median_ratio = float(math.exp(np.median(x) - np.median(b)))
    change = Change.UNCHANGED
    if p_slower < alpha and ratio > 1 + margin:
        change = Change.REGRESSION
    elif p_faster < alpha and ratio < 1 / (1 + margin):
        change = Change.SPEEDUP
    return Comparison(ratio, math.exp(lo), math.exp(hi), confidence, median_ratio, p_slower, p_faster, margin, alpha,
                      change)
