"""What a journal shows: per step, the values' spread, NaN and Inf, robust outliers and the blocks or warps that
never reached it; and the first step where something went wrong, with where.

Outliers use the modified z-score of Iglewicz and Hoaglin, ``0.6745 (x - median) / MAD`` with the median absolute
deviation (``scipy.stats.median_abs_deviation``) ("How to Detect and Handle Outliers", ASQC Basic References in
Quality Control 16, 1993). Their threshold of 3.5 is for one sample; a journal tests every block at every step,
and on normal or chi-square data 3.5 flags some block at 10 to 57% of the steps (2,000 simulated steps of 16 to 512
blocks), 7 at under 1% from 16 blocks on (2% at 8): ``DEFAULT_Z`` is 7, so what is flagged is a block far off its
peers (a wrong scale, a garbage read), not the tail of the data. Where more than half the values are equal (MAD 0),
the mean absolute deviation around the median, times sqrt(pi/2), stands in for it. A step needs at least
``MIN_FOR_OUTLIERS`` finite values to have outliers.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .._errors import SpecError

if TYPE_CHECKING:
    from ._host import Journal

#: Fewest finite values at a step for its outliers to be looked for.
MIN_FOR_OUTLIERS = 8
#: The robust z-score past which a value is an outlier.
DEFAULT_Z = 7.0
#: At most this many places listed per kind and step (the counts are exact).
MAX_LISTED = 8


@dataclass(frozen=True)
class Place:
    """Where an entry came from: the linear block, its index per grid axis, and the warp (None: a whole Triton
    program). ``value`` is the entry's value when it is about one."""

    block: int
    pid: tuple[int, int, int]
    warp: int | None = None
    value: float | None = None

    def describe(self) -> str:
        pid = "" if self.pid[1:] == (0, 0) else f" (pid {self.pid[0]}, {self.pid[1]}, {self.pid[2]})"
        warp = "" if self.warp is None else f" warp {self.warp}"
        value = "" if self.value is None else f" = {self.value:.6g}"
        return f"block {self.block}{pid}{warp}{value}"


@dataclass
class StepSummary:
    """One step: ``count`` entries, of which ``nan``/``inf`` hold a NaN/Inf value; ``nonfinite_values`` sums the
    entries' nonfinite counts (lanes or tile elements); min/median/max over the finite values (None if none);
    ``outliers`` (robust z past the threshold, with ``median`` and ``mad`` the scale used); ``missing``: blocks or
    warps that logged some other step but not this one (``missing_count`` exact, the list cut at MAX_LISTED)."""

    step: int
    count: int
    nan: int = 0
    inf: int = 0
    nonfinite_values: int = 0
    min: float | None = None
    median: float | None = None
    max: float | None = None
    mad: float | None = None
    nonfinite_at: list[Place] = field(default_factory=list)
    nonfinite_count: int = 0  # entries with a NaN/Inf value or a nonzero nonfinite count
    outliers: list[Place] = field(default_factory=list)
    outlier_count: int = 0
    missing: list[Place] = field(default_factory=list)
    missing_count: int = 0


@dataclass
class Anomaly:
    """The first step (lowest number) where something appears, what it is, and where."""

    kind: str  # "nonfinite" or "outlier"
    step: int
    places: list[Place]
    count: int  # entries of that kind at that step (places is cut at MAX_LISTED)
    median: float | None = None  # the step's median (outliers)

    def describe(self) -> str:
        what = "NaN/Inf" if self.kind == "nonfinite" else "outlier"
        where = ", ".join(p.describe() for p in self.places[:3])
        more = f" and {self.count - 3} more" if self.count > 3 else ""
        med = f" (median of the step {self.median:.6g})" if self.median is not None else ""
        return f"first {what} at step {self.step}: {where}{more}{med}"


@dataclass
class JournalSummary:
    """What a journal shows. ``dropped`` appends found it full (then ``missing`` may be drops, not early exits);
    ``unwritten`` slots were reserved by an append that never completed; ``guards_intact`` is False when something
    wrote around the buffer. ``first_nonfinite``/``first_outlier``: the first step where NaN/Inf or an outlier
    appears, and where."""

    capacity: int
    attempted: int
    recorded: int
    dropped: int
    unwritten: int
    guards_intact: bool
    units: int  # distinct blocks (Triton programs) or warps that logged
    per_warp: bool = False  # entries are per warp (CUDA C), not per program (Triton)
    steps: list[StepSummary] = field(default_factory=list)
    first_nonfinite: Anomaly | None = None
    first_outlier: Anomaly | None = None
    first_missing: int | None = None  # the first step some block or warp never reached

    @property
    def ok(self) -> bool:
        """Nothing to report: no NaN/Inf, no outlier, no missing step, nothing dropped, guards intact."""
        return (self.first_nonfinite is None and self.first_outlier is None and self.first_missing is None
                and self.dropped == 0 and self.unwritten == 0 and self.guards_intact)

    def step(self, step: int) -> StepSummary | None:
        return next((s for s in self.steps if s.step == step), None)

    def to_dict(self) -> dict[str, Any]:
        """Plain data for JSON: NaN and Inf values as the strings "nan", "inf", "-inf"."""
        return _jsonable(asdict(self))

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), **kwargs)

    def headline(self) -> str:
        """One line: the first anomalies, drops and guards."""
        parts = [a.describe() for a in (self.first_nonfinite, self.first_outlier) if a is not None]
        if self.first_missing is not None:
            s = self.step(self.first_missing)
            n = s.missing_count if s is not None else 0
            parts.append(f"step {self.first_missing} never reached by {n} of {self.units} "
                         f"{'warps' if self.per_warp else 'blocks'}"
                         + (" (entries were dropped: some may be drops, not early exits)" if self.dropped else ""))
        if self.dropped:
            parts.append(f"{self.dropped} entries dropped (capacity {self.capacity}, {self.attempted} appends)")
        if self.unwritten:
            parts.append(f"{self.unwritten} slots reserved but never written (the kernel stopped mid-append)")
        if not self.guards_intact:
            parts.append("the guard words around the journal were overwritten")
        return "; ".join(parts) if parts else f"{self.recorded} entries, nothing unusual"

    def text(self) -> str:
        lines = [f"journal: {self.recorded} of {self.capacity} entries kept, {self.dropped} dropped, "
                 f"{self.units} {'warps' if self.per_warp else 'blocks'}, {len(self.steps)} steps"
                 + ("" if self.guards_intact else "; GUARDS OVERWRITTEN"),
                 f"  {self.headline()}",
                 f"  {'step':>6} {'count':>6} {'nan':>5} {'inf':>5} {'min':>11} {'median':>11} {'max':>11} "
                 f"{'outliers':>8} {'missing':>7}"]
        for s in self.steps:
            lines.append(f"  {s.step:>6} {s.count:>6} {s.nan:>5} {s.inf:>5} {_num(s.min):>11} {_num(s.median):>11} "
                         f"{_num(s.max):>11} {s.outlier_count:>8} {s.missing_count:>7}")
            for label, places, count in (("NaN/Inf", s.nonfinite_at, s.nonfinite_count),
                                         ("outliers", s.outliers, s.outlier_count),
                                         ("missing", s.missing, s.missing_count)):
                if count:
                    more = f" (+{count - len(places)} more)" if count > len(places) else ""
                    lines.append(f"         {label}: {', '.join(p.describe() for p in places)}{more}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text()


def _num(v: float | None) -> str:
    return "-" if v is None else f"{v:.4g}"


def _jsonable(x: Any) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    return x


def robust_z(values: np.ndarray) -> tuple[np.ndarray, float, float]:
    """Modified z-scores of finite ``values``, with the median and the scale used (0: all equal)."""
    from scipy.stats import median_abs_deviation  # type: ignore[import-untyped]

    med = float(np.median(values))
    mad = float(median_abs_deviation(values, scale=1.0))
    if mad > 0:
        return 0.6745 * (values - med) / mad, med, mad
    mean_ad = float(np.mean(np.abs(values - med)))
    if mean_ad > 0:  # more than half the values equal: the mean absolute deviation stands in (scaled alike)
        return (values - med) / (math.sqrt(math.pi / 2) * mean_ad), med, mad
    return np.zeros_like(values), med, mad


def summarize(journal: Journal, *, outlier_z: float = DEFAULT_Z) -> JournalSummary:
    """The summary of what ``journal`` holds (see ``JournalSummary``)."""

    if not (isinstance(outlier_z, (int, float)) and math.isfinite(outlier_z) and outlier_z > 0):
        raise SpecError("outlier_z", outlier_z,
                        f"give a positive finite threshold for the robust z-score (default {DEFAULT_Z:g})")
    df = journal.frame()
    unwritten = int((~df["written"]).sum())
    df = df[df["written"]]
    warp = df["warp"].to_numpy(dtype=np.int64, na_value=-1)
    block = df["block"].to_numpy()
    pid = df[["pid_x", "pid_y", "pid_z"]].to_numpy()
    step = df["step"].to_numpy()
    value = df["value"].to_numpy()
    nonfinite = df["nonfinite"].to_numpy()
    units = {(int(b), int(w)): i for i, (b, w) in enumerate(zip(block, warp, strict=True))}  # unit -> an entry

    def place(i: int, with_value: bool = True) -> Place:
        return Place(int(block[i]), (int(pid[i, 0]), int(pid[i, 1]), int(pid[i, 2])),
                     None if warp[i] < 0 else int(warp[i]), float(value[i]) if with_value else None)

    summary = JournalSummary(journal.capacity, journal.attempted, journal.recorded, journal.dropped, unwritten,
                             journal.guards_intact, len(units), per_warp=bool((warp >= 0).any()))
    for s in np.unique(step):
        idx = np.flatnonzero(step == s)
        v = value[idx]
        finite = np.isfinite(v)
        st = StepSummary(int(s), len(idx), nan=int(np.isnan(v).sum()), inf=int(np.isinf(v).sum()),
                         nonfinite_values=int(nonfinite[idx].sum()))
        bad = idx[~finite | (nonfinite[idx] > 0)]
        # listed in program order: a GPU's journal holds the entries in the order they arrived, which varies
        bad = bad[np.lexsort((warp[bad], block[bad]))]
        st.nonfinite_count = len(bad)
        st.nonfinite_at = [place(i) for i in bad[:MAX_LISTED]]
        fv = v[finite]
        if len(fv):
            st.min, st.median, st.max = float(fv.min()), float(np.median(fv)), float(fv.max())
        if len(fv) >= MIN_FOR_OUTLIERS:
            z, _, mad = robust_z(fv)
            st.mad = mad
            far = idx[finite][np.abs(z) > outlier_z]
            far = far[np.argsort(-np.abs(value[far] - (st.median or 0.0)), kind="stable")]  # the farthest first
            st.outlier_count = len(far)
            st.outliers = [place(i) for i in far[:MAX_LISTED]]
        here = {(int(b), int(w)) for b, w in zip(block[idx], warp[idx], strict=True)}
        gone = sorted(u for u in units if u not in here)
        st.missing_count = len(gone)
        st.missing = [place(units[u], with_value=False) for u in gone[:MAX_LISTED]]
        summary.steps.append(st)
    for st in summary.steps:
        if summary.first_nonfinite is None and st.nonfinite_count:
            summary.first_nonfinite = Anomaly("nonfinite", st.step, st.nonfinite_at, st.nonfinite_count)
        if summary.first_outlier is None and st.outlier_count:
            summary.first_outlier = Anomaly("outlier", st.step, st.outliers, st.outlier_count, st.median)
        if summary.first_missing is None and st.missing_count:
            summary.first_missing = st.step
    return summary
