"""Where a check's wall time goes: case time per axis (why the case exists) from kcheck's JSON reports.

    python benchmarks/case_time.py REPORT.json [REPORT2.json ...]

Prints, per report, the number of cases and the seconds per axis (nominal, size, precision, pairwise, long, big,
large, ...), sorted by time, and the ten slowest cases. Two reports of the same run (cold, then warm compile caches)
show how much of each axis is compiling.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict


def main(paths: list[str]) -> None:
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        by_axis: dict[str, list[float]] = defaultdict(list)
        every: list[tuple[float, str, str]] = []
        for spec in data["specs"]:
            for c in spec["cases"]:
                if c["status"] == "skipped":
                    continue
                secs = c["timing"]["total"]
                by_axis[c["case"]["axis"]].append(secs)
                every.append((secs, spec["name"], c["case"]["id"]))
        total = sum(s for v in by_axis.values() for s in v)
        print(f"== {path}: {sum(len(v) for v in by_axis.values())} cases, {total:.1f} s of case time")
        for axis, secs in sorted(by_axis.items(), key=lambda kv: -sum(kv[1])):
            print(f"  {axis:12s} {len(secs):4d} cases {sum(secs):7.1f} s  ({sum(secs) / max(total, 1e-9):5.1%})")
        for s, name, cid in sorted(every, reverse=True)[:10]:
            print(f"  {s:6.2f} s  {name}  {cid[:100]}")


if __name__ == "__main__":
    main(sys.argv[1:])
