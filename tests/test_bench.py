"""kcheck.bench: baselines under concurrent writers, the verdict's statistics, environments never compared, the
case selection, the no-GPU command; on a GPU, real timings, a crash while timed, graph replay."""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import kcheck
from kcheck.bench import (
    GRAPH,
    BenchStatus,
    Change,
    Cost,
    Entry,
    Environment,
    ExitCode,
    Store,
    compare,
    configure,
    is_timing_case,
    judge,
    select_cases,
)

ROOT = Path(__file__).resolve().parent.parent
H200 = Environment("NVIDIA H200", "560.35.03", "2.11.0", "3.6.0")
H100 = Environment("NVIDIA H100 80GB HBM3", "560.35.03", "2.11.0", "3.6.0")
NO_GPU = not torch.cuda.is_available()


def _lognormal(rng: np.random.Generator, n: int, median: float = 0.1, cv: float = 0.03) -> np.ndarray:
    """Timings as a GPU gives them: lognormal around the median, and 2% of outliers up to 30% slower."""
    x = np.exp(rng.normal(np.log(median), cv, n))
    k = max(1, n // 50)
    x[rng.choice(n, k, replace=False)] *= 1 + rng.uniform(0.05, 0.3, k)
    return x


# -- the baseline store ------------------------------------------------------------------------------------------


def _writer(path: str, worker: int, updates: int, barrier: object) -> None:
    store = Store(path)
    barrier.wait()  # type: ignore[attr-defined]
    for i in range(updates):
        samples = [0.001 * (worker + 1) + 1e-6 * i] * 3
        store.update([Entry.of("spec", f"spec[w={worker},i={i}]", H200, "events", samples, samples[0], 0.0),
                      Entry.of("spec", "spec[shared]", H200, "events", samples, samples[0], 0.0)])


def test_eight_concurrent_writers_lose_no_entry(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "baselines.json"
    ctx = mp.get_context("fork")  # no CUDA here; fork keeps the test fast
    barrier = ctx.Barrier(8)
    procs = [ctx.Process(target=_writer, args=(str(path), w, 50, barrier)) for w in range(8)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0] * 8
    data = json.loads(path.read_text())  # a valid JSON file
    assert data["format"] == "kcheck-bench/1"
    entries = Store(path).entries()
    assert len(entries) == 8 * 50 + 1
    for w in range(8):
        for i in range(50):
            e = entries[f"spec|spec[w={w},i={i}]|{H200.key}|events"]
            assert e.samples_ms == pytest.approx([0.001 * (w + 1) + 1e-6 * i] * 3)
    assert not list(path.parent.glob(".baselines.json.*.tmp"))  # no temporary file left behind


def test_store_keeps_a_bounded_sample_that_keeps_its_distribution(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    x = _lognormal(rng, 5000)
    store = Store(tmp_path / "b.json")
    store.update([Entry.of("s", "s[c]", H200, "events", x, float(np.median(x)), 0.03)])
    (e,) = store.entries().values()
    assert len(e.samples_ms) == 500
    assert np.median(e.samples_ms) == pytest.approx(np.median(x), rel=2e-3)
    assert np.quantile(e.samples_ms, 0.9) == pytest.approx(np.quantile(x, 0.9), rel=5e-3)


def test_a_corrupt_baseline_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    path.write_text("{not json")
    with pytest.raises(kcheck.EnvironmentProblem, match="cannot be read as JSON"):
        Store(path).entries()


# -- the verdict -------------------------------------------------------------------------------------------------


def test_same_distribution_rank_test_rejects_at_its_alpha_and_the_verdict_never_cries_wolf() -> None:
    rng = np.random.default_rng(2)
    trials, alpha = 400, 0.05
    significant = regressions = speedups = 0
    for _ in range(trials):
        base, new = _lognormal(rng, 200), _lognormal(rng, 200)
        plain = compare(base, new, margin=0.0, alpha=alpha)  # the rank test alone: H0 "no slower"
        significant += plain.p_slower < alpha
        verdict = compare(base, new, alpha=alpha)  # the default 10% margin
        regressions += verdict.change is Change.REGRESSION
        speedups += verdict.change is Change.SPEEDUP
    # a calibrated test rejects at rate alpha: 20 of 400 expected; 99.9% binomial bounds are about [6, 38]
    assert 6 <= significant <= 38, significant
    assert regressions == 0 and speedups == 0


def test_a_15_percent_slowdown_is_flagged_with_its_ratio_and_interval() -> None:
    rng = np.random.default_rng(3)
    covered = 0
    for _ in range(100):
        base, new = _lognormal(rng, 200), _lognormal(rng, 200) * 1.15
        c = compare(base, new)
        assert c.change is Change.REGRESSION
        assert c.ci_low <= c.ratio <= c.ci_high and 1.12 < c.ratio < 1.18
        covered += c.ci_low <= 1.15 <= c.ci_high
    assert covered >= 88  # a 95% interval: 95 expected, fewer than 88 has probability ~0.001
    c = compare(_lognormal(rng, 200), _lognormal(rng, 200) / 1.15)
    assert c.change is Change.SPEEDUP and c.ratio < 0.9


def test_a_slowdown_within_the_margin_or_too_noisy_is_not_a_regression() -> None:
    rng = np.random.default_rng(4)
    c = compare(_lognormal(rng, 200), _lognormal(rng, 200) * 1.06)
    assert c.change is Change.UNCHANGED and 1.03 < c.ratio < 1.09  # seen, but within 10%
    assert compare(_lognormal(rng, 200), _lognormal(rng, 200) * 1.06, margin=0.05).change is Change.REGRESSION
    # a 15% median shift in samples too few and too noisy to tell: not flagged
    c = compare(_lognormal(rng, 4, cv=0.4), _lognormal(rng, 4, cv=0.4) * 1.15)
    assert c.change is Change.UNCHANGED


def test_clocks_locked_means_a_5_percent_margin(tmp_path: Path) -> None:
    from kcheck.bench._bench import _margin

    assert _margin(None, False) == 0.10 and _margin(None, True) == 0.05 and _margin(0.2, True) == 0.2
    with pytest.raises(kcheck.SpecError):
        _margin(-1, False)


def _judge(store: Store, env: Environment, samples: np.ndarray, **kw: object) -> kcheck.bench.CaseBench:
    opts = {"margin": 0.10, "alpha": 0.01, "clocks_locked": False, "update_baseline": False, **kw}
    return judge("add", "add[N=4096,fp32,randn,seed=0]", samples, env, "events", store, **opts)  # type: ignore


def test_first_run_records_later_runs_compare_and_update_accepts(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    store = Store(tmp_path / "b.json")
    first = _judge(store, H200, _lognormal(rng, 300))
    assert first.status is BenchStatus.RECORDED and first.baseline_written and first.comparison is None
    same = _judge(store, H200, _lognormal(rng, 300))
    assert same.status is BenchStatus.UNCHANGED and not same.baseline_written
    slow = _judge(store, H200, _lognormal(rng, 300) * 1.3)
    assert slow.status is BenchStatus.REGRESSION and not slow.baseline_written
    again = _judge(store, H200, _lognormal(rng, 300) * 1.3)  # a regression does not become the baseline
    assert again.status is BenchStatus.REGRESSION
    accepted = _judge(store, H200, _lognormal(rng, 300) * 1.3, update_baseline=True)
    assert accepted.status is BenchStatus.REGRESSION and accepted.baseline_written
    assert _judge(store, H200, _lognormal(rng, 300) * 1.3).status is BenchStatus.UNCHANGED
    fast = _judge(store, H200, _lognormal(rng, 300))
    assert fast.status is BenchStatus.SPEEDUP and any("--update-baseline" in n for n in fast.notes)


def test_a_baseline_from_another_gpu_or_version_is_never_compared(tmp_path: Path) -> None:
    rng = np.random.default_rng(6)
    store = Store(tmp_path / "b.json")
    _judge(store, H100, _lognormal(rng, 300, median=0.1))
    elsewhere = _judge(store, H200, _lognormal(rng, 300, median=0.5))  # 5x slower, but another GPU
    assert elsewhere.status is BenchStatus.RECORDED and elsewhere.comparison is None
    assert elsewhere.other_environments and "gpu: NVIDIA H100 80GB HBM3 -> NVIDIA H200" in \
        elsewhere.other_environments[0] and "not compared" in elsewhere.other_environments[0]
    newer = Environment(H200.gpu, H200.driver, "2.13.0", H200.triton)
    res = _judge(store, newer, _lognormal(rng, 300, median=0.5))
    assert res.status is BenchStatus.RECORDED and len(res.other_environments) == 2
    assert any("torch: 2.11.0 -> 2.13.0" in o for o in res.other_environments)
    text = kcheck.bench.format_case(res)
    assert "baseline elsewhere" in text and "not compared" in text


# -- what is timed -----------------------------------------------------------------------------------------------


def _double(x: torch.Tensor, BLOCK: int = 64) -> torch.Tensor:
    return x * 2


def _select_spec() -> kcheck.Spec:  # built in a function: kcheck's pytest plugin collects module-level Specs
    return kcheck.Spec(name="double2d", kernel=_double, reference=lambda x: x * 2, inputs=[kcheck.Tensor("M", "N")],
                       dims={"M": kcheck.Dim(nominal=256), "N": kcheck.Dim(nominal=512)}, dtypes=["fp32", "bf16"],
                       configs=[{"BLOCK": 64}, {"BLOCK": 128}])


def _gpu_device() -> object:
    from kcheck._device import DeviceInfo

    return DeviceInfo("cuda", "NVIDIA H200", 141 * 2**30, 140 * 2**30, (9, 0), 132, False)


def test_timing_cases_are_the_nominal_and_real_ones_never_edge_cases() -> None:
    spec = _select_spec()
    cases, unrunnable = select_cases(spec, device=_gpu_device())
    ids = {c.id for c in cases}
    assert not unrunnable
    assert ids == {
        "double2d[M=256,N=512,fp32,randn,BLOCK=64,seed=0]", "double2d[M=256,N=512,bf16,randn,BLOCK=64,seed=0]",
        "double2d[M=256,N=512,fp32,randn,BLOCK=128,seed=0]",
        *(f"double2d[M={m},N=512,fp32,randn,BLOCK=64,seed=0]" for m in (37, 2880, 128256)),
        *(f"double2d[M=256,N={n},fp32,randn,BLOCK=64,seed=0]" for n in (37, 2880, 128256))}
    everything = kcheck.matrix(spec, device=_gpu_device())  # type: ignore[arg-type]
    edge = [c for c in everything if c.id not in ids]
    assert len(edge) > 50 and not any(is_timing_case(spec, c) for c in edge)
    assert {c.pattern for c in cases} == {"randn"} and {c.layout for c in cases} == {"contiguous"}


def test_cases_named_or_sized_by_the_spec() -> None:
    spec = kcheck.Spec(name="double2d_named", kernel=_double, reference=lambda x: x * 2,
                       inputs=[kcheck.Tensor("M", "N")], dims={"M": kcheck.Dim(nominal=256),
                                                               "N": kcheck.Dim(nominal=512)},
                       dtypes=["fp32", "bf16"], configs=[{"BLOCK": 64}])
    configure(spec, cases=["*bf16*"])
    cases, _ = select_cases(spec, device=_gpu_device())
    assert [c.id for c in cases] == ["double2d_named[M=256,N=512,bf16,randn,BLOCK=64,seed=0]"]
    configure(spec, sizes=[{"M": 8192, "N": 8192}], dtypes=["bf16"])
    cases, _ = select_cases(spec, device=_gpu_device())
    assert "double2d_named[M=8192,N=8192,bf16,randn,BLOCK=64,seed=0]" in [c.id for c in cases]
    assert len(cases) == 9  # the default 8, and the stated size
    with pytest.raises(kcheck.SpecError, match="sizes"):
        configure(spec, sizes=[{"M": 8192}])


def test_roofline_from_a_stated_cost_and_the_peaks() -> None:
    from kcheck.bench._bench import _roofline
    from kcheck.bench._stats import Summary
    from kcheck.bench._timing import Timed

    case = kcheck.Case("g", (("M", 1024), ("N", 1024), ("K", 1024)), "bf16")
    cost = Cost(flops=lambda c: 2 * c["M"] * c["N"] * c["K"],
                bytes=lambda c: (c["M"] * c["K"] + c["K"] * c["N"] + c["M"] * c["N"]) * c.itemsize)
    summary = Summary.of([0.01] * 5)  # 10 us
    peaks = {"copy_bytes_per_s": 4e12, "bf16_flops_per_s": 8e14}
    r = _roofline(_select_spec(), case, Timed(bytes_estimate=1.0), summary, peaks, cost)
    assert r.flops == 2 * 1024**3 and r.flop_rate == pytest.approx(2 * 1024**3 / 1e-5)
    assert r.flop_fraction == pytest.approx(r.flop_rate / 8e14)
    assert r.bytes == 3 * 1024 * 1024 * 2 and not r.bytes_estimated
    assert r.bandwidth_fraction == pytest.approx(3 * 1024 * 1024 * 2 / 1e-5 / 4e12)
    est = _roofline(_select_spec(), case, Timed(bytes_estimate=4e6), summary, peaks, None)
    assert est.bytes == 4e6 and est.bytes_estimated and est.flops is None and est.flop_fraction is None
    with pytest.raises(kcheck.SpecError, match="Cost"):
        Cost(flops=-1)


# -- the command without a GPU -----------------------------------------------------------------------------------


@pytest.mark.skipif(not NO_GPU, reason="the no-GPU path")
def test_cli_without_a_gpu_says_so_times_nothing_and_exits_not_run(tmp_path: Path) -> None:
    baseline = tmp_path / "b" / "baselines.json"
    out = tmp_path / "report.json"
    proc = subprocess.run([sys.executable, "-m", "kcheck.bench", str(ROOT / "examples" / "vector_add.py"),
                           "--baseline", str(baseline), "--json", str(out)],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert proc.returncode == ExitCode.NOT_RUN == 6, proc.stderr
    assert "no CUDA GPU on this machine: nothing was timed" in proc.stdout
    assert "vector_add[N=4096,fp32,randn,BLOCK=1024,seed=0]" in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr
    assert not baseline.exists()  # nothing recorded
    report = json.loads(out.read_text())
    assert report["environment"] is None and not report["passed"]
    assert {c["status"] for s in report["specs"] for c in s["cases"]} == {"not-run"}


@pytest.mark.skipif(not NO_GPU, reason="the no-GPU path")
def test_add_cli_wires_a_bench_subcommand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser(prog="kcheck")
    sub = parser.add_subparsers(dest="command", required=True)
    kcheck.bench.add_cli(sub)
    args = parser.parse_args(["bench", str(ROOT / "examples" / "vector_add.py"), "--baseline",
                              str(tmp_path / "b.json"), "--clocks-locked", "--margin", "7%"])
    assert args.margin == pytest.approx(0.07) and args.clocks_locked
    assert args.handler(args) == ExitCode.NOT_RUN
    assert "no CUDA GPU" in capsys.readouterr().out
    args = parser.parse_args(["bench", str(tmp_path / "missing.py")])
    with pytest.raises(kcheck.SpecError, match="no such file"):
        args.handler(args)


@pytest.mark.skipif(not NO_GPU, reason="the no-GPU path")
def test_the_pytest_fixture_skips_without_a_gpu(tmp_path: Path) -> None:
    test = tmp_path / "test_speed.py"
    test.write_text("import sys\nsys.path.insert(0, {!r})\nimport vector_add\n\n"
                    "def test_speed(kcheck_bench):\n    kcheck_bench(vector_add.spec)\n".format(str(ROOT / "examples")))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "kcheck.bench._pytest", str(test), "-q", "-rs",
                           "--kcheck-bench-baseline", str(tmp_path / "b.json"), "-p", "no:cacheprovider"],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert "1 skipped" in proc.stdout and "no CUDA GPU" in proc.stdout, proc.stdout + proc.stderr


# -- on a GPU ----------------------------------------------------------------------------------------------------

GPU_SPECS = """
import os
import torch
import kcheck


def add(x, y):
    return x + y


def crash(x):
    os.abort()


add_spec = kcheck.Spec(name="bench_add", kernel=add, reference=torch.add,
                       inputs=[kcheck.Tensor("N"), kcheck.Tensor("N")], dims={"N": kcheck.Dim(nominal=1 << 24)},
                       dtypes=["fp32"])
crash_spec = kcheck.Spec(name="bench_crash", kernel=crash, reference=lambda x: x, inputs=[kcheck.Tensor("N")],
                         dtypes=["fp32"])
"""


def _gpu_spec(tmp_path: Path, name: str) -> kcheck.Spec:
    """A Spec of a file written here (a worker imports it by file; a test module's own Specs would be collected)."""
    from kcheck.bench._cli import load_spec

    path = tmp_path / "bench_gpu_specs.py"
    path.write_text(GPU_SPECS)
    return load_spec(str(path), name)


@pytest.mark.gpu
def test_gpu_first_run_records_second_compares(tmp_path: Path) -> None:
    spec = _gpu_spec(tmp_path, "bench_add")
    base = tmp_path / "b.json"
    opts = kcheck.bench.TimingOptions(rep_ms=100.0)
    first = kcheck.bench.bench(spec, baseline=base, cases="N=16777216", options=opts)
    (c,) = first.cases()
    assert c.status is BenchStatus.RECORDED and c.summary is not None and c.summary.n >= 50
    assert c.roofline is not None and c.roofline.bytes_estimated and c.roofline.bytes == 3 * 4 * (1 << 24)
    assert first.peaks and 0.2 < c.roofline.bandwidth_fraction < 1.5  # type: ignore[operator]
    second = kcheck.bench.bench(spec, baseline=base, cases="N=16777216", options=opts)
    assert second.cases()[0].status is BenchStatus.UNCHANGED and second.passed
    assert (tmp_path / "peaks.json").exists()


@pytest.mark.gpu
def test_gpu_a_crashing_kernel_is_reported_not_suffered(tmp_path: Path) -> None:
    spec = _gpu_spec(tmp_path, "bench_crash")
    report = kcheck.bench.bench(spec, baseline=tmp_path / "b.json", roofline=False, cases="N=128,fp32")
    statuses = {c.status for c in report.cases()}
    assert statuses == {BenchStatus.CRASHED}, kcheck.bench.format_bench(report)
    assert kcheck.bench.exit_code(report) == ExitCode.REGRESSION


@pytest.mark.gpu
def test_gpu_graph_replay(tmp_path: Path) -> None:
    spec = _gpu_spec(tmp_path, "bench_add")
    small = kcheck.bench.bench(spec, baseline=tmp_path / "b.json", cases="N=37,", graph=True, roofline=False)
    (c,) = small.cases()
    assert c.method == GRAPH and c.summary is not None and c.summary.median_ms < 0.02, c.notes


@pytest.mark.gpu
def test_gpu_the_read_flush_evicts_the_inputs_from_the_l2_cache() -> None:
    """The flush before each timed call only reads: it must still evict the previous call's data, so a sum over
    32 MB (which fits the L2 cache of an H100/H200) is timed reading memory, slower than the same sum repeated on a
    warm cache. (Measured on an H200: 17.5 us flushed.)"""
    import torch

    from kcheck.bench._timing import TimingOptions, time_events

    x = torch.randn(8 << 20, device="cuda")
    out = torch.empty((), device="cuda")
    fn = lambda: torch.sum(x, dim=0, out=out)  # noqa: E731
    flushed = float(np.median(time_events(fn, TimingOptions(rep_ms=100.0))))
    fn()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(200)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(200)]
    for s, e in zip(starts, ends, strict=True):
        torch.cuda._sleep(100_000)  # keeps the GPU ahead of the CPU's launches, as the flush does, touching no memory
        s.record()
        fn()
        e.record()
    torch.cuda.synchronize()
    warm = float(np.median([s.elapsed_time(e) for s, e in zip(starts, ends, strict=True)]))
    assert flushed > 1.2 * warm, (flushed, warm)


def test_graph_replay_rotates_over_enough_copies_to_pass_the_l2_cache():
    from kcheck.bench._timing import input_copies

    mib = 2**20
    x = torch.arange(1000, dtype=torch.float32)
    assert input_copies([x], free_bytes=2**40, l2=50 * mib) == 64  # 4 KB inputs: as many as pass the L2, at most 64
    assert input_copies([torch.empty(64 * mib // 4)], free_bytes=2**40, l2=50 * mib) == 2  # 64 MiB: two pass 100 MiB
    assert input_copies([torch.empty(64 * mib // 4)], free_bytes=256 * mib, l2=50 * mib) == 1  # a quarter of memory
    assert input_copies([3, "a"], free_bytes=2**40, l2=50 * mib) == 1  # nothing to copy


@pytest.mark.gpu
def test_gpu_a_case_is_timed_with_its_modes() -> None:
    from kcheck._device import detect
    from kcheck.bench._timing import TimingOptions
    from kcheck.bench._worker import time_case
    from kcheck.cases import build_matrix

    got: list[float] = []

    def scale(x, factor):
        got.append(factor)
        return x * factor

    spec = kcheck.Spec(name="scaled", kernel=scale, reference=lambda x, factor: x * factor,
                       inputs=[kcheck.Tensor("N")], dims={"N": kcheck.Dim(4096)}, params={"factor": [2.0, 3.0]})
    case = next(c for c in build_matrix(spec, detect()) if c.params_dict["factor"] == 3.0)
    timed = time_case(spec, case, TimingOptions(rep_ms=5.0, min_samples=5, warmup_ms=1.0))
    assert timed.error is None and timed.samples_ms
    assert set(got) == {3.0}
