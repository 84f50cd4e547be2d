"""What the sanitizer pass costs (GPU machine with compute-sanitizer).

    python benchmarks/sanitize_cost.py [FILE] [--sample K]

For the first Spec in FILE (default examples/softmax.py): wall time of its edge cases run plainly in one process
(the same worker, no sanitizer); of each tool over all cases in one sanitized process, the four one after another
and side by side (what kcheck does); and of
one sanitized process per case and tool, measured on K cases per tool and scaled to all cases (stated as such).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

from kcheck._device import detect
from kcheck._discover import discover
from kcheck.sanitize._run import TOOLS, _sanitizer, edge_cases, sanitize


def _timed(cmd: list[str]) -> float:
    env = {**os.environ, "PYTORCH_NO_CUDA_MEMORY_CACHING": "1"}
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, capture_output=True, check=False)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("file", nargs="?", default="examples/softmax.py")
    ap.add_argument("--sample", type=int, default=2)
    args = ap.parse_args()
    spec = discover(args.file)[0].specs[0]
    dev = detect()
    cases = edge_cases(spec, dev)
    ids = [c.id for c in cases]
    exe = _sanitizer()
    path = os.path.abspath(args.file)
    with tempfile.TemporaryDirectory() as tmp:
        worker = [sys.executable, "-m", "kcheck.sanitize._worker", os.path.join(tmp, "m.tsv"), path, spec.name]
        plain = _timed(worker + ids)
        t0 = time.perf_counter()
        serial = sanitize(spec, cases=cases, jobs=1)
        one_after_another = time.perf_counter() - t0
        t0 = time.perf_counter()
        report = sanitize(spec, cases=cases)
        together = time.perf_counter() - t0
        per_tool = {t.tool: t.seconds for t in serial.tools}
        single = []
        for tool in TOOLS:
            for case_id in ids[: args.sample]:
                single.append(_timed([exe, "--tool", tool, *worker, case_id]))
    est = sum(single) / len(single) * len(ids) * len(TOOLS)
    print(f"spec {spec.name}: {len(ids)} edge cases")
    print(f"plain run, one process:                   {plain:7.1f} s")
    for tool, sec in per_tool.items():
        print(f"{tool:<10} all cases, one process:      {sec:7.1f} s  ({sec / plain:.1f}x plain)")
    seq = one_after_another
    print(f"all four tools, one after another:        {seq:7.1f} s  ({seq / plain:.1f}x plain)")
    print(f"all four tools side by side (kcheck's way): {together:5.1f} s  ({together / plain:.1f}x plain)")
    print(
        f"one process per case and tool (measured {len(single)}, scaled to {len(ids) * len(TOOLS)}): {est:7.1f} s "
        f"-> kcheck's way is {est / together:.0f}x faster"
    )
    print("statuses: " + ", ".join(f"{t.tool}={t.status}" for t in report.tools))


if __name__ == "__main__":
    main()
