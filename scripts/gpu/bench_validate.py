"""Validate ``kcheck bench`` on a GPU and print the figures it is judged by:

1. the same kernel against its own baseline 100 times: regressions at the 10% margin (want 0);
2. a planted ~15% slowdown against the fast kernel's baseline 30 times: flagged every time;
3. the spread (coefficient of variation of the reported time, the interquartile mean, over 30 runs) of
   ``kcheck bench`` beside plain ``triton.testing.do_bench`` (its default mean, and its median) measured in the
   same run, interleaved, for a kernel of >= 50 us and one of ~5 us: kcheck's no worse than do_bench's (the
   lower of its mean's and its median's).

Usage: python scripts/gpu/bench_validate.py OUT_DIR [--quick]. Writes OUT_DIR/bench_validation.json and
OUT_DIR/bench_validation.md; exits 1 when an expectation fails. Without a GPU it says so, runs the statistics and
the baseline bookkeeping on synthetic timings (no kernel is timed), and exits 0.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def _cv(values: list[float]) -> float:
    x = np.asarray(values)
    return float(x.std(ddof=1) / x.mean())


def _f_test_p(mine: list[float], theirs: list[float]) -> float:
    """One-sided p-value that kcheck's relative variance exceeds do_bench's (F test on the CVs)."""
    from scipy import stats

    f = (_cv(mine) / _cv(theirs)) ** 2
    return float(stats.f.sf(f, len(mine) - 1, len(theirs) - 1))


def synthetic(out: Path) -> dict[str, object]:
    """No GPU: the verdict and the baseline file on synthetic timings shaped like a GPU's (no kernel runs)."""
    from kcheck.bench import BenchStatus, Environment, Store, judge

    rng = np.random.default_rng(0)
    env = Environment("synthetic", "none", "none", "none")
    store = Store(out / "synthetic" / "baselines.json")

    def sample(scale: float = 1.0) -> np.ndarray:
        return np.exp(rng.normal(np.log(0.1), 0.02, 2000)) * scale

    def run(scale: float) -> BenchStatus:
        return judge("k", "k[N=1]", sample(scale), env, "events", store, margin=0.10, alpha=0.01,
                     clocks_locked=False, update_baseline=False).status

    first = run(1.0)
    same = [run(1.0) for _ in range(100)]
    slow = [run(1.15) for _ in range(30)]
    return {"first": first.value, "same_regressions": sum(s is BenchStatus.REGRESSION for s in same),
            "planted_flagged": sum(s is BenchStatus.REGRESSION for s in slow), "planted_tries": 30}


def gpu(out: Path, quick: bool) -> tuple[dict[str, object], list[str]]:
    import bench_kernels as bk
    import torch
    import triton.testing

    from kcheck.bench import BenchStatus, TimingOptions, bench

    failures: list[str] = []
    base = out / "baselines.json"
    opts = TimingOptions()
    results: dict[str, object] = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
                                  "triton": triton.__version__, "timing": {"rep_ms": opts.rep_ms,
                                                                           "min_samples": opts.min_samples}}
    nominal = {"scale_big": f"N={bk.BIG},", "scale_small": f"N={bk.SMALL},"}

    def once(spec: object, name: str, **kw: object) -> object:
        report = bench(spec, baseline=base, cases=nominal[name], isolate=False, options=opts, **kw)  # type: ignore
        (case,) = report.cases()
        if case.summary is None:
            raise RuntimeError(f"{case.case}: {case.status.value}: {case.reason}")
        return case

    t0 = time.perf_counter()
    first = once(bk.scale_big, "scale_big", roofline=True)
    print(f"baseline recorded: {first.case} median {first.summary.median_ms * 1000:.2f} us "  # type: ignore
          f"cv {first.summary.cv:.2%} n={first.summary.n}", flush=True)  # type: ignore
    roof = first.roofline  # type: ignore
    results["roofline_big"] = {"bandwidth_fraction": roof.bandwidth_fraction, "bandwidth": roof.bandwidth}

    # 1. the same kernel against its own baseline
    tries = 20 if quick else 100
    same = [once(bk.scale_big, "scale_big", roofline=False) for _ in range(tries)]
    ratios = [c.comparison.ratio for c in same]  # type: ignore
    regs = sum(c.status is BenchStatus.REGRESSION for c in same)  # type: ignore
    speedups = sum(c.status is BenchStatus.SPEEDUP for c in same)  # type: ignore
    results["same"] = {"tries": tries, "regressions": regs, "speedups": speedups, "ratio_min": min(ratios),
                       "ratio_max": max(ratios), "ratio_median": float(np.median(ratios))}
    print(f"same kernel x{tries}: {regs} regression(s), {speedups} speed-up(s), ratio {min(ratios):.3f}.."
          f"{max(ratios):.3f}  ({time.perf_counter() - t0:.0f} s)", flush=True)
    if regs:
        failures.append(f"{regs} regression(s) of the same kernel against its own baseline (want 0)")

    # 2. the planted slowdown
    slow_spec = bk.planted(bk.scale_big)
    tries_slow = 10 if quick else 30
    slow = [once(slow_spec, "scale_big", roofline=False) for _ in range(tries_slow)]
    flagged = sum(c.status is BenchStatus.REGRESSION for c in slow)  # type: ignore
    sratios = [c.comparison.ratio for c in slow]  # type: ignore
    results["planted"] = {"tries": tries_slow, "flagged": flagged, "ratio_min": min(sratios),
                          "ratio_max": max(sratios), "ratio_median": float(np.median(sratios)),
                          "ci_example": [slow[0].comparison.ci_low, slow[0].comparison.ci_high]}  # type: ignore
    print(f"planted slowdown x{tries_slow}: flagged {flagged}, ratio {min(sratios):.3f}..{max(sratios):.3f}  "
          f"({time.perf_counter() - t0:.0f} s)", flush=True)
    if flagged != tries_slow:
        failures.append(f"the planted slowdown was flagged {flagged} of {tries_slow} times (want every time)")
    if min(sratios) < 1.12:
        failures.append(f"the planted slowdown measured only x{min(sratios):.3f} (the plant is too weak to judge)")

    # 3. spread of the reported time (interquartile mean), kcheck bench beside do_bench, interleaved
    runs = 10 if quick else 30
    spread: dict[str, dict[str, object]] = {}
    for name, spec, n in (("scale_big", bk.scale_big, bk.BIG), ("scale_small", bk.scale_small, bk.SMALL)):
        x = torch.randn(n, device="cuda")
        fn = lambda x=x: bk.scale(x)  # noqa: E731
        mine, db_mean, db_median = [], [], []
        for _ in range(runs):
            mine.append(once(spec, name, roofline=False).summary.iqm_ms)  # type: ignore  # the reported time
            db_mean.append(float(triton.testing.do_bench(fn)))
            db_median.append(float(triton.testing.do_bench(fn, return_mode="median")))
        cv_mean, cv_median = _cv(db_mean), _cv(db_median)
        row = {"median_us": float(np.median(mine)) * 1000, "cv_kcheck": _cv(mine), "cv_do_bench": cv_mean,
               "cv_do_bench_median": cv_median, "do_bench_us": float(np.median(db_mean)) * 1000,
               "p_kcheck_worse": _f_test_p(mine, db_mean), "runs": runs,
               "kcheck_medians_ms": mine, "do_bench_ms": db_mean, "do_bench_median_ms": db_median}
        spread[name] = row
        print(f"{name}: median {row['median_us']:.2f} us; CV of the reported time over {runs} runs: kcheck "
              f"{row['cv_kcheck']:.3%}, do_bench {row['cv_do_bench']:.3%} (mean), {row['cv_do_bench_median']:.3%} "
              f"(median)  ({time.perf_counter() - t0:.0f} s)", flush=True)
        best = min(cv_mean, cv_median)
        if row["cv_kcheck"] > best:  # type: ignore[operator]
            failures.append(f"{name}: kcheck's CV {row['cv_kcheck']:.3%} is worse than do_bench's "
                            f"{best:.3%} (one-sided F test against its mean p={row['p_kcheck_worse']:.2g})")
    if spread["scale_big"]["median_us"] < 50:  # type: ignore[operator]
        failures.append(f"the large kernel took {spread['scale_big']['median_us']:.1f} us, not >= 50 us")
    results["spread"] = spread
    results["seconds"] = time.perf_counter() - t0
    return results, failures


def table(results: dict[str, object]) -> str:
    s, p = results["same"], results["planted"]  # type: ignore[index]
    lines = [f"kcheck bench on {results['device']} (torch {results['torch']}, triton {results['triton']}), "
             f"{results['seconds']:.0f} s", "",
             "| check | want | got |", "|---|---|---|",
             f"| same kernel vs its own baseline, {s['tries']} runs | 0 regressions at 10% | {s['regressions']} "
             f"(ratio {s['ratio_min']:.3f}..{s['ratio_max']:.3f}, {s['speedups']} speed-ups) |",
             f"| planted slowdown, {p['tries']} runs | flagged every time | {p['flagged']}/{p['tries']} (ratio "
             f"{p['ratio_min']:.3f}..{p['ratio_max']:.3f}) |", "",
             "| kernel | median | CV kcheck bench | CV do_bench (mean) | CV do_bench (median) | runs |",
             "|---|---|---|---|---|---|"]
    for name, row in results["spread"].items():  # type: ignore[attr-defined]
        lines.append(f"| {name} | {row['median_us']:.2f} us | {row['cv_kcheck']:.3%} | {row['cv_do_bench']:.3%} | "
                     f"{row['cv_do_bench_median']:.3%} | {row['runs']} |")
    frac = results.get("roofline_big", {}).get("bandwidth_fraction")  # type: ignore[attr-defined]
    if frac is not None:
        lines.append(f"\nscale_big achieved {frac:.0%} of the measured device-copy bandwidth")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", nargs="?", default=os.environ.get("OUT", "bench-validation"))
    ap.add_argument("--quick", action="store_true", help="fewer runs (a smoke test of this script)")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    import torch

    if not torch.cuda.is_available():
        res = synthetic(out)
        (out / "bench_validation.json").write_text(json.dumps({"gpu": False, "synthetic": res}, indent=1))
        print("no GPU: nothing timed (kcheck bench times nothing without one). Synthetic timings through the "
              f"verdict and the baseline file: first run {res['first']}, same-distribution regressions "
              f"{res['same_regressions']}/100, planted 15% flagged {res['planted_flagged']}/30")
        ok = res["first"] == "recorded" and res["same_regressions"] == 0 and res["planted_flagged"] == 30
        return 0 if ok else 1
    results, failures = gpu(out, args.quick)
    results["failures"] = failures
    (out / "bench_validation.json").write_text(json.dumps(results, indent=1, default=float))
    text = table(results)
    (out / "bench_validation.md").write_text(text + "\n")
    print("\n" + text)
    for f in failures:
        print(f"FAILED: {f}")
    print("bench validation: " + ("FAILED" if failures else "all expectations met"))
    return 1 if failures or not math.isfinite(float(results["seconds"])) else 0  # type: ignore[arg-type]


if __name__ == "__main__":
    sys.exit(main())
