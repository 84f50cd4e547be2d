"""Replay the diagnosis rules on the held-out zoo rows stored in benchmarks/results/ (no kernel runs).

    python benchmarks/replay_rules.py                 # the rules of this checkout
    python benchmarks/replay_rules.py --hallmarks     # and each hallmark's precision as the top cause's reason

Each row the zoo scorer stores keeps the kinds of the observations its diagnosis made. Scoring those kinds again
with the current profiles (``kcheck.diagnose.replay``) shows what a change of weights, priors or contradictions does
on every earlier round at once, in a second: how many planted causes rank first, and how many wrong causes reach
the confident score (0.7). It measures the rules, not the observers: a row's kinds are those its run's observers
made (older rounds lack the newer kinds), and no deciding experiment runs again (one the new scores would start is
missing). Every earlier round has been read by the rule writer, so its figures are tuned; only a new held-out round
measures generalization.
"""

from __future__ import annotations

import argparse
import glob
import json
from collections import defaultdict
from pathlib import Path

from kcheck.diagnose import replay

ROOT = Path(__file__).resolve().parent.parent
CONFIDENT = 0.7


def rows(folder: Path, pattern: str = "*heldout*.json") -> list[tuple[str, dict]]:
    """The planted-bug rows with observations of every result file matching ``pattern`` (re-scorings of a round,
    named ``*_after*``, left out: the round is counted once per machine and run)."""
    out = []
    for path in sorted(glob.glob(str(folder / pattern))):
        if "_after" in path:
            continue
        data = json.loads(Path(path).read_text())
        for row in data["rows"] if isinstance(data, dict) else data:
            if row.get("buggy") and row.get("class") and row.get("observations"):
                out.append((Path(path).name, row))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", type=Path, default=ROOT / "benchmarks" / "results")
    ap.add_argument("--pattern", default="*heldout*.json",
                    help="which result files (zoo_h100_tuned_run69.json: a run of the tuned zoo)")
    ap.add_argument("--hallmarks", action="store_true", help="each top cause's precision by its strongest hallmark")
    ap.add_argument("--json", type=Path, help="write the figures and the confident wrong rows here")
    args = ap.parse_args(argv)

    table = rows(args.results, args.pattern)
    right = stored_right = confident = 0
    wrong: list[dict] = []
    by_hallmark: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for name, row in table:
        kinds = frozenset(row["observations"])
        fixed = {c["key"]: c["score"] for c in row.get("causes") or []}
        key, s, hallmark = replay(kinds, fixed)[0]
        ok = key == row["class"]
        right += ok
        stored_right += bool(row.get("diagnosis_ok"))
        if s >= CONFIDENT:
            confident += 1
            mark = "+".join(hallmark) or "-"
            by_hallmark[(key, mark)][0] += 1
            by_hallmark[(key, mark)][1] += ok
            if not ok:
                wrong.append({"file": name, "spec": row["spec"], "planted": row["class"], "top": key, "score": s,
                              "hallmark": mark})
    n = len(table)
    print(f"{n} planted rows of {len({f for f, _ in table})} result files")
    print(f"planted cause first: {right}/{n} ({right / max(n, 1):.0%}); as stored by their runs: {stored_right}/{n}")
    print(f"confident (>= {CONFIDENT}): {confident}, of them wrong: {len(wrong)}")
    for w in wrong:
        print(f"  {w['file']}: {w['spec']} ({w['planted']}) -> {w['top']} {w['score']} by {w['hallmark']}")
    if args.hallmarks:
        print("\nconfident top causes by their strongest hallmark (right/all):")
        for (key, mark), (all_, ok) in sorted(by_hallmark.items(), key=lambda kv: kv[1][1] / kv[1][0]):
            print(f"  {ok:3d}/{all_:<3d} {key} by {mark}")
    if args.json:
        args.json.write_text(json.dumps({"rows": n, "right": right, "stored_right": stored_right,
                                         "confident": confident, "confident_wrong": wrong}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
