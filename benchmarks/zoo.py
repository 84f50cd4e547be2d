"""Score kcheck on the planted bugs, beside the checks people use today (issue 6, first part: no diagnosis yet).

    python benchmarks/zoo.py [--seeds N]

For every Spec in tests/zoo_kernels (one planted bug each) and in examples/ (correct kernels):

- kcheck: the default matrix (no past-2**31 case on the CPU), interpreter checks on; detected or not, and by which
  mechanism first: comparison, baseline rule, no-op guard, unwritten output, input mutation, property,
  interpreter finding, crash/error; the smallest failing case; the time;
- KernelBench-style: the nominal shape only, 5 seeds, fp32 inputs, ``torch.allclose(atol=1e-4, rtol=1e-4)``;
- one-shape ``torch.testing.assert_close``: the nominal shape, seed 0, the Spec's first precision, default
  tolerances.

Correct examples count as false positives when a check fails them. Bugs that only a GPU can show (the int32
overflow past 2**31 elements) are marked so on a CPU.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import torch

from kcheck import CaseResult, Spec
from kcheck._device import enable_interpreter_if_no_gpu

ROOT = Path(__file__).resolve().parent.parent


def _mechanism(res: CaseResult) -> str:
    if res.status.value in ("crashed", "timeout", "error"):
        return res.status.value
    if res.findings:
        return "interpreter check"
    for cmp in res.comparisons:
        if cmp.unwritten:
            return "unwritten output"
    if res.noop:
        return "no-op guard"
    if any(c.mismatches for c in res.comparisons):
        return "comparison"
    if any(c.baseline is not None and c.baseline.required and not c.baseline.passed for c in res.comparisons):
        return "baseline rule"
    if res.mutated_inputs:
        return "input mutation"
    if any(not p.passed for p in res.properties):
        return "property"
    return "other: " + "; ".join(res.reasons)[:60]


def _size(res: CaseResult) -> int:
    return math.prod(max(v, 1) for v in res.case.sizes.values())


def _nominal_outputs(spec: Spec, precision: str, seed: int) -> tuple[list[torch.Tensor], tuple[torch.Tensor, ...]]:
    import kcheck
    from kcheck.cases import make_args, upcast
    from kcheck.run._execute import _Kernel

    case = next(c for c in kcheck.matrix(spec, dtypes=[precision], seeds=max(seed + 1, 1))
                if c.axis in ("seed", "size") and c.seed == seed and c.pattern == "randn"
                and c.layout == "contiguous" and c.sizes == {d: spec.dim(d).nominal for d in spec.dim_names()})
    device = "cuda" if torch.cuda.is_available() else "cpu"
    args = make_args(spec, case, device)
    ref = spec.reference(*upcast(args))
    ref = ref if isinstance(ref, tuple) else (ref,)
    outs, _ = _Kernel(spec, case, device).outputs(args)
    return outs, ref


def kernelbench(spec: Spec) -> bool:
    """True when the KernelBench-style check flags the kernel."""
    try:
        for seed in range(5):
            outs, ref = _nominal_outputs(spec, "fp32", seed)
            for o, r in zip(outs, ref, strict=False):
                if not torch.allclose(o.double(), r.double().to(o.device), atol=1e-4, rtol=1e-4):
                    return True
    except Exception:
        return True
    return False


def one_shape(spec: Spec) -> bool:
    """True when a one-shape assert_close flags the kernel."""
    try:
        outs, ref = _nominal_outputs(spec, spec.precisions[0].name, 0)
        for o, r in zip(outs, ref, strict=False):
            torch.testing.assert_close(o, r.to(device=o.device, dtype=o.dtype))
    except Exception:
        return True
    return False


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=3, help="seeds per correct example (false positives)")
    args = ap.parse_args()
    enable_interpreter_if_no_gpu()
    import kcheck
    from kcheck._discover import discover

    gpu = torch.cuda.is_available()
    rows = []
    for folder, buggy in ((ROOT / "tests" / "zoo_kernels", True), (ROOT / "examples", False)):
        for found in discover(folder):
            for spec in found.specs:
                if spec.name.endswith("_fixed"):
                    buggy_here = False
                else:
                    buggy_here = buggy
                t0 = time.perf_counter()
                report = kcheck.check(spec, large=gpu, seeds=None if buggy_here else args.seeds)
                seconds = time.perf_counter() - t0
                bad = [c for c in report.cases if not c.ok]
                skipped_all = all(c.status.value == "skipped" for c in report.cases)
                large_skipped = any(c.case.axis == "large" and c.status.value == "skipped" for c in report.cases)
                smallest = min(bad, key=_size) if bad else None
                rows.append({
                    "spec": spec.name, "buggy": buggy_here, "kcheck": bool(bad), "skipped": skipped_all,
                    "mechanism": _mechanism(smallest) if smallest else (
                        "GPU only (large)" if buggy_here and large_skipped else "-"),
                    "minimal": smallest.id if smallest else "-", "seconds": seconds,
                    "kernelbench": kernelbench(spec) if not skipped_all else None,
                    "assert_close": one_shape(spec) if not skipped_all else None,
                })
    print(f"{'spec':<26}{'bug?':<6}{'kcheck':<9}{'mechanism':<20}{'KB-style':<10}{'assert_close':<14}{'s':>6}  "
          "smallest failing case")
    for r in rows:
        def mark(v: bool | None) -> str:
            return "n/a" if v is None else ("FLAG" if v else "-")

        kc = "skipped" if r["skipped"] else mark(r["kcheck"])
        print(f"{r['spec']:<26}{'yes' if r['buggy'] else 'no':<6}{kc:<9}{r['mechanism']:<20}"
              f"{mark(r['kernelbench']):<10}{mark(r['assert_close']):<14}{r['seconds']:>6.1f}  {r['minimal']}")
    bugs = [r for r in rows if r["buggy"] and not r["skipped"] and r["mechanism"] != "GPU only (large)"]
    gpu_only = [r["spec"] for r in rows if r["buggy"] and (r["skipped"] or r["mechanism"] == "GPU only (large)")]
    print(f"can only show on a GPU here: {', '.join(gpu_only) or 'none'}")
    good = [r for r in rows if not r["buggy"] and not r["skipped"]]
    for name in ("kcheck", "kernelbench", "assert_close"):
        det = sum(bool(r[name]) for r in bugs)
        fp = sum(bool(r[name]) for r in good)
        print(f"{name:<13} detected {det}/{len(bugs)} planted bugs; false positives {fp}/{len(good)} correct kernels")


if __name__ == "__main__":
    main()
