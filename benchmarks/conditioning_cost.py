"""What the debugger's conditioning probe costs: the reference alone, on the CPU, once on a case's inputs and four
times on them moved by a few ulps (no kernel run). Timed on the thin-lens Spec of tests/debug_specs at its nominal
size and at larger square sizes.

    python benchmarks/conditioning_cost.py [SIZE ...]      (default: 64x96 nominal, then 256, 1024)
"""

from __future__ import annotations

import dataclasses
import importlib
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))


def main(argv: list[str]) -> int:
    import kcheck
    from kcheck.diagnose._sweep import conditioning

    spec = importlib.import_module("debug_specs.evidence").lens_textbook
    nominal = next(c for c in kcheck.matrix(spec) if c.pattern == "randn" and c.layout == "contiguous")
    cases = [nominal] + [dataclasses.replace(nominal, dims=(("M", n), ("N", n))) for n in map(int, argv or [256, 1024])]
    for case in cases:
        conditioning(spec, case)  # warm up torch's kernels
        t0 = time.perf_counter()
        where = conditioning(spec, case)
        seconds = time.perf_counter() - t0
        elements = case.sizes["M"] * case.sizes["N"]
        moved = sum(len(w) for w in where) if where is not None else None
        print(f"{case.id}: {seconds * 1e3:.1f} ms for {elements} elements ({moved} ill-conditioned)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
