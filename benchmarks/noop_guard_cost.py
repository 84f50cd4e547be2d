"""What the no-op guard costs per output, on the CPU: one call of ``noop_guard`` on a failing and on a passing
output of N float32 elements with two same-shaped inputs (each a candidate), median of 7.

    python benchmarks/noop_guard_cost.py [N ...] [--against REV]

``--against REV`` times the guard of that git revision beside this one, in the same process (one thread each).

Since the guard also says when a failing output is exactly an input (``NoopVerdict.identical``), every candidate is
compared elementwise with the output, not only those the tolerance cannot tell from the answer.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

from kcheck.compare import Tolerance, noop_guard


def _time(fn: object, reps: int = 7) -> float:
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()  # type: ignore[operator]
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def _guard_at(rev: str) -> object:
    """``noop_guard`` as the file stood at git revision ``rev``."""
    root = Path(__file__).resolve().parent.parent
    text = subprocess.run(["git", "show", f"{rev}:src/kcheck/compare/_noop.py"], cwd=root, check=True,
                          capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp()) / "kcheck_compare_noop_old.py"
    path.write_text(text.replace("from ._compare import", "from kcheck.compare._compare import")
                    .replace("from ._tolerance import", "from kcheck.compare._tolerance import"))
    spec = importlib.util.spec_from_file_location("kcheck_compare_noop_old", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.noop_guard


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("sizes", nargs="*", type=int, default=[2**16, 2**20, 2**22])
    ap.add_argument("--against", metavar="REV", default=None)
    args = ap.parse_args()
    torch.set_num_threads(1)
    guards = [("this tree", noop_guard)] + ([(args.against, _guard_at(args.against))] if args.against else [])
    tol = Tolerance(1.3e-6, 1e-5, "fp32")
    for n in args.sizes:
        x, y = torch.randn(n), torch.randn(n)
        e = (x.double() + y.double()) / 2
        right = e.float()
        wrong = x.clone()  # a launcher returning its input
        for name, guard in guards:
            t_right = _time(functools.partial(guard, right, e, tol, [x, y]))
            t_wrong = _time(functools.partial(guard, wrong, e, tol, [x, y]))
            print(f"N={n:>9,} {name:>10}: passing output {t_right * 1e3:7.2f} ms, failing output "
                  f"{t_wrong * 1e3:7.2f} ms")


if __name__ == "__main__":
    main()
