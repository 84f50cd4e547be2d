"""pytest support: the ``kcheck_bench`` fixture times a Spec against its baselines and fails the test on a
regression (or a kernel that raised, crashed or hung while timed); on a machine without a GPU it skips.

    def test_softmax_speed(kcheck_bench):
        kcheck_bench(softmax_spec)                    # first run records, later runs compare

    $ pytest test_speed.py --kcheck-bench-baseline perf/baselines.json [--kcheck-update-baseline]

Options: ``--kcheck-bench-baseline FILE``, ``--kcheck-update-baseline``, ``--kcheck-clocks-locked``. Several
pytest-xdist workers may share one baseline file: every update is locked and atomic.

Registered by kcheck's pytest plugin (``pytest_plugins = ["kcheck.bench._pytest"]``), or on its own with
``pytest -p kcheck.bench._pytest``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ._bench import bench
from ._report import format_bench


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("kcheck")
    group.addoption("--kcheck-bench-baseline", default=None, metavar="FILE",
                    help="kcheck_bench's baseline file (default .kcheck-bench/baselines.json)")
    group.addoption("--kcheck-update-baseline", action="store_true",
                    help="kcheck_bench records this run's timings as the baselines")
    group.addoption("--kcheck-clocks-locked", action="store_true",
                    help="the GPU's clocks are locked: kcheck_bench's margin is 5%% instead of 10%%")


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "kcheck_bench: a test that times kernels against their baselines (GPU)")


def _option(config: pytest.Config, name: str, default: Any) -> Any:
    try:
        return config.getoption(name)
    except ValueError:  # the options were not added (the fixture imported without its plugin)
        return default


@pytest.fixture
def kcheck_bench(request: pytest.FixtureRequest) -> Callable[..., Any]:
    """``kcheck_bench(spec, **kwargs) -> BenchReport``: ``kcheck.bench.bench`` with the command line's baseline
    options; skips without a GPU, fails on a regression or a kernel failure (``check=False``: only returns)."""
    request.node.add_marker("kcheck_bench")
    config = request.config

    def run(spec: Any, *, check: bool = True, **kwargs: Any) -> Any:
        kwargs.setdefault("update_baseline", _option(config, "kcheck_update_baseline", False))
        kwargs.setdefault("clocks_locked", _option(config, "kcheck_clocks_locked", False))
        report = bench(spec, **kwargs)
        if report.environment is None:
            pytest.skip(report.reason or "no CUDA GPU")
        if check and (report.regressions or report.failures):
            pytest.fail(format_bench(report), pytrace=False)
        return report

    return run
