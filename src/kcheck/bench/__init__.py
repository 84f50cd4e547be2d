"""Performance non-regression: time a Spec's nominal and real-dimension cases on the GPU, compare each with its
recorded baseline, and flag a slowdown past a margin (10%, 5% with locked clocks) that a rank test finds
significant. See docs/bench.md.

    import kcheck.bench
    report = kcheck.bench.bench(spec)            # first run records, later runs compare
    assert not report.regressions, kcheck.bench.format_bench(report)

CLI: ``kcheck bench PATH`` (``add_cli``/``run_cli``); pytest: the ``kcheck_bench`` fixture (``_pytest``).
"""

from ._bench import ALPHA, MARGIN, MARGIN_LOCKED, BenchReport, BenchStatus, CaseBench, Roofline, SpecBench, bench, judge
from ._cli import ExitCode, add_cli, exit_code, run_cli
from ._env import Environment
from ._plan import Cost, CostContext, configure, is_timing_case, select_cases
from ._report import format_bench, format_case
from ._stats import Change, Comparison, Summary, compare
from ._store import Entry, Store
from ._timing import EVENTS, GRAPH, TimingOptions

__all__ = ["ALPHA", "EVENTS", "GRAPH", "MARGIN", "MARGIN_LOCKED", "BenchReport", "BenchStatus", "CaseBench", "Change",
           "Comparison", "Cost", "CostContext", "Entry", "Environment", "ExitCode", "Roofline", "SpecBench", "Store",
           "Summary", "TimingOptions", "add_cli", "bench", "compare", "configure", "exit_code", "format_bench",
           "format_case", "is_timing_case", "judge", "run_cli", "select_cases"]
