"""What kcheck.interpret's checks cost: each example's launcher in Triton's interpreter, plain and under
``kcheck.interpret.checked()`` (bounds and races; bounds only), on a couple of shapes.

    python benchmarks/interpret_overhead.py [--repeat 5] [--order sequential|reversed|random]

Prints one row per (example, shape): the median wall time of ``--repeat`` runs plain, checked, and checked without
race detection (the three interleaved run by run), with the ratios. Inputs are built with torch.randn; each
run's output is compared with the plain run's. The target is checked/plain <= 3.

When triton-viz imports (``pip install triton-viz``; 3.0 imports with triton 3.7 only), a last column times its
symbolic sanitizer (``triton_viz.trace(client=Sanitizer(abort_on_error=False))`` around each kernel of the example,
a fresh client per run, as it skips repeat launches), in a subprocess of its own: triton-viz patches the interpreter
for good once used. It computes no outputs, so its results are not compared.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("TRITON_INTERPRET", "1")  # before triton and the examples are imported
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))

import torch  # noqa: E402

import kcheck.interpret as ki  # noqa: E402


def cases() -> list[tuple[str, str, Callable[[], Any]]]:
    """(example module, shape, a call of its launcher on inputs built once)."""
    import gemm
    import layernorm
    import softmax
    import sum_reduction
    import vector_add

    g = torch.Generator().manual_seed(0)

    def randn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=g)

    out: list[tuple[str, str, Callable[[], Any]]] = []
    for n in (4096, 1 << 20):
        x, y = randn(n), randn(n)
        out.append(("vector_add", f"N={n}", lambda x=x, y=y: vector_add.add(x, y)))
    for m, n in ((128, 1024), (129, 4099)):
        x = randn(m, n)
        out.append(("sum_reduction", f"{m}x{n}", lambda x=x: sum_reduction.row_sum(x)))
    for m, n in ((128, 1024), (129, 4099)):
        x = randn(m, n)
        out.append(("softmax", f"{m}x{n}", lambda x=x: softmax.softmax(x)))
    for m, n in ((128, 1024), (129, 4099)):
        x, w, b = randn(m, n), randn(n), randn(n)
        out.append(("layernorm", f"{m}x{n}", lambda x=x, w=w, b=b: layernorm.layernorm(x, w, b)))
    for m, n, k in ((128, 128, 128), (129, 129, 129), (17, 17, 4096)):
        a, b = randn(m, k), randn(k, n)
        out.append(("gemm", f"{m}x{n}x{k}", lambda a=a, b=b: gemm.gemm(a, b)))
    return out


def timed(fn: Callable[[], Any], repeat: int, order: str) -> tuple[list[float], list[Any], int]:
    """Median times of fn plain, checked, checked without races: the three interleaved, run after run, so that a
    change of the machine's load hits all three alike. Also the last results of each, and the findings seen."""
    modes: list[dict[str, Any] | None] = [None, {"order": order}, {"order": order, "races": False}]
    times: list[list[float]] = [[] for _ in modes]
    results: list[Any] = [None] * len(modes)
    findings = 0
    for _ in range(repeat):
        for k, mode in enumerate(modes):
            with contextlib.ExitStack() as stack:
                report = stack.enter_context(ki.checked(**mode)) if mode is not None else None
                t0 = time.perf_counter()
                results[k] = fn()
                times[k].append(time.perf_counter() - t0)
            findings += len(report.records) if report is not None else 0
    return [statistics.median(t) for t in times], results, findings


def viz_timed(module_name: str, fn: Callable[[], Any], repeat: int) -> float | None:
    """Median time of ``fn`` with each Triton kernel of the example wrapped in triton-viz's sanitizer (None when it
    fails)."""
    import triton_viz
    from triton.runtime.interpreter import InterpretedFunction
    from triton_viz.clients import Sanitizer

    module = sys.modules[module_name]
    kernels = {k: v for k, v in vars(module).items() if isinstance(v, InterpretedFunction)}
    times = []
    for _ in range(repeat):
        for k, v in kernels.items():
            setattr(module, k, triton_viz.trace(client=Sanitizer(abort_on_error=False))(v))
        try:
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        except Exception:
            return None
        finally:
            for k, v in kernels.items():
                setattr(module, k, v)
    return statistics.median(times)


def viz_times(repeat: int) -> list[float | None] | None:
    """triton-viz's times for every case, from a subprocess; None when triton-viz does not import."""
    if importlib.util.find_spec("triton_viz") is None:  # importing it here would patch this process's interpreter
        return None
    proc = subprocess.run([sys.executable, __file__, "--viz-json", "--repeat", str(repeat)], capture_output=True,
                          text=True, check=False)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("VIZ ")]
    return json.loads(lines[-1][4:]) if lines else None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--order", default="sequential", choices=ki.ORDERS)
    ap.add_argument("--viz-json", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.viz_json:
        out = [viz_timed(name, fn, args.repeat) for name, _, fn in cases()]
        print("VIZ " + json.dumps(out))
        return
    viz = viz_times(args.repeat)
    import triton

    print(f"triton {triton.__version__}, torch {torch.__version__}, {os.cpu_count()} CPUs; median of {args.repeat} "
          f"runs; order {args.order}")
    print(f"{'example':<14}{'shape':<14}{'plain ms':>10}{'checked ms':>12}{'x':>7}{'bounds-only ms':>16}{'x':>7}"
          f"{'findings':>10}{'triton-viz ms':>15}{'x':>7}")
    worst = 0.0
    for k, (name, shape, fn) in enumerate(cases()):
        fn()  # warm up: the interpreter rewrites each kernel once
        (plain, full, bounds), (want, *got), findings = timed(fn, args.repeat, args.order)
        for r in got:
            assert torch.allclose(r, want, rtol=1e-4, atol=1e-4), f"{name} {shape}: checked result differs"
        worst = max(worst, full / plain)
        v = viz[k] if viz is not None else None
        viz_text = f"{v * 1e3:>15.1f}{v / plain:>7.2f}" if v is not None else f"{'-':>15}{'-':>7}"
        print(f"{name:<14}{shape:<14}{plain * 1e3:>10.1f}{full * 1e3:>12.1f}{full / plain:>7.2f}"
              f"{bounds * 1e3:>16.1f}{bounds / plain:>7.2f}{findings:>10}{viz_text}")
    print(f"worst checked/plain: {worst:.2f}x")


if __name__ == "__main__":
    main()
