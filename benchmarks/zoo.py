"""Score kcheck on the planted bugs, beside the checks people use today.

    python benchmarks/zoo.py [--seeds N] [--zoo DIR]

For every Spec in tests/zoo_kernels (one planted bug each; ``--zoo DIR`` scores another folder of planted bugs) and in
examples/ (correct kernels):

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
import os
import time
from collections import Counter
from collections.abc import Callable
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
    """The kernel's outputs as a casual test gets them: kcheck's inputs for the nominal case, but the kernel called
    directly (no poisoned outputs: declared outputs are zero-filled, as a hand-written test would allocate them)."""
    import kcheck
    from kcheck.cases import make_args, upcast
    from kcheck.cases._matrix import tensor_shapes

    case = next(c for c in kcheck.matrix(spec, dtypes=[precision], seeds=max(seed + 1, 1))
                if c.axis in ("seed", "size") and c.seed == seed and c.pattern == "randn"
                and c.layout == "contiguous" and c.sizes == {d: spec.dim(d).nominal for d in spec.dim_names()})
    device = "cuda" if torch.cuda.is_available() else "cpu"
    args = make_args(spec, case, device)
    ref = spec.reference(*upcast(args))
    ref = ref if isinstance(ref, tuple) else (ref,)
    if spec.outputs is not None:
        shapes = tensor_shapes(spec, case.sizes)[len([t for t in spec.inputs if hasattr(t, "dims")]):]
        storage = args[0].dtype if isinstance(args[0], torch.Tensor) else torch.float32
        outs = [torch.zeros(s, dtype=t.dtype or storage, device=device) for s, t in zip(shapes, spec.outputs,
                                                                                         strict=False)]
        spec.kernel(*args, *outs, **case.config_dict)
    else:
        res = spec.kernel(*args, **case.config_dict)
        outs = list(res if isinstance(res, tuple) else (res,))
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


def _baseline(check: Callable[[Spec], bool], spec: Spec) -> bool:
    """``check(spec)``, a baseline that calls the kernel raw. In Triton's interpreter a wild store is performed for
    real and one corrupted this process's heap (a segfault on a held-out kernel), so there the launches run under
    the interpreter's bounds check, which masks an out-of-bounds lane off (its finding is not shown to the
    baseline, which judges the values alone). A forked child instead deadlocked under pytest."""
    from kcheck._device import interpreter_active

    if not interpreter_active():
        return check(spec)
    from kcheck.interpret import checked

    with checked(races=False):
        return check(spec)


def _baselines_apart(spec: Spec) -> tuple[bool, bool]:
    """Both baselines, (KernelBench-style, assert_close), run in a fresh process on a GPU: they call the kernel raw,
    and a device-side assert or an illegal address there leaves this process's CUDA context broken for good (a
    held-out kernel's trap once killed a scoring part at the next Spec's device query). A child that dies or hangs
    counts as flagged by both: a hand-written test sees a crash or a hang too."""
    import json
    import subprocess
    import sys

    from kcheck._discover import locate

    ref = locate(spec)
    if ref is None:  # a Spec built inside a function: no file to load it again from
        return _baseline(kernelbench, spec), _baseline(one_shape, spec)
    try:
        done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--baselines", ref.path, ref.name],
                              capture_output=True, text=True, timeout=600, check=False)
    except subprocess.TimeoutExpired:
        return True, True
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return True, True
    kb, ac = json.loads(lines[-1])
    return bool(kb), bool(ac)


def _baselines_here(path: str, name: str) -> None:
    """The child's side of ``_baselines_apart``: print [KernelBench-style, assert_close] as JSON, last line."""
    import json

    from kcheck._discover import discover

    spec = next(s for f in discover(path) for s in f.specs if s.name == name)
    print(json.dumps([kernelbench(spec), one_shape(spec)]), flush=True)


def _large_cases(spec: Spec, spec_report: object, seeds: int | None, wait: float = 240.0) -> str:
    """Run the past-2**31 cases one process at a time per GPU (they are sized to the GPU's free memory, which
    parallel parts share) and put their results in place of the skipped entries. A case skipped for memory is
    retried for up to ``wait`` seconds while the other parts finish theirs. Returns what happened, for the row."""
    import fcntl
    import tempfile

    import kcheck

    gpu = os.environ.get("CUDA_VISIBLE_DEVICES", "all").replace(",", "-")  # one lock per GPU: they share its memory
    with open(Path(tempfile.gettempdir()) / f"kcheck-zoo-large-{gpu}.lock", "w") as lock:
        torch.cuda.empty_cache()  # before waiting for the lock: the part that holds it may need this memory
        fcntl.flock(lock, fcntl.LOCK_EX)
        deadline = time.monotonic() + wait
        while True:
            large = [c for c in kcheck.matrix(spec, seeds=seeds) if c.axis == "large"]
            if not large:
                return "no large case"
            # skipped for the memory other parts hold: it may fit once they give it back (one that needs more than
            # the whole GPU is skipped in other words, and not waited for)
            if not any("GiB free" in (c.skip or "") for c in large) or time.monotonic() > deadline:
                break
            time.sleep(5)
        ids = [c.id for c in large if c.skip is None]
        if not ids:
            return "skipped: " + "; ".join(sorted({c.skip or "" for c in large}))
        done = {r.case.id: r for r in kcheck.check(spec, cases=ids, seeds=seeds, isolate=True).specs[0].cases}
    _merge_large(spec_report.cases, done)  # type: ignore[attr-defined]
    said = [f"{r.case.id} {r.status.value}" + (f": {r.reasons[0]}" if r.status.value == "skipped" and r.reasons else "")
            for r in done.values()]
    return "; ".join(said)


def _merge_large(cases: list[CaseResult], done: dict[str, CaseResult]) -> None:
    """Put each large case's result where the report skipped it, by its own id (a second case that failed must not
    be hidden behind the first's skip)."""
    for i, r in enumerate(cases):
        if r.case.id in done:
            cases[i] = done[r.case.id]


_UNDECLARED = object()


def _bug_class(spec: Spec, default: object = None) -> object:
    """The planted class its module declares (``BUG_CLASS``; None for a control), else ``default``."""
    import sys

    from kcheck._discover import locate

    ref = locate(spec)
    if ref is None:
        return default
    for module in list(sys.modules.values()):
        if getattr(module, "__file__", None) and Path(module.__file__).resolve() == Path(ref.path).resolve():
            return getattr(module, "BUG_CLASS", default)
    return default


def _static(spec: Spec) -> list:
    from kcheck.diagnose import lint_spec

    # (a product of two runtime sizes is flagged wherever it may wrap, bounded in practice or not: not counted as
    # finding the planted bug)
    return [f for f in lint_spec(spec) if f.severity == "error"
            or ("int32" in f.kind and f.kind != "triton-size-product-int32")]


def _stages(name: str, quiet: bool) -> Callable[[str], None]:
    """A printer of each stage's end and its time since the last, for a Spec's row: a part cut by its time limit
    shows in its log where the time went."""
    last = [time.perf_counter()]

    def stage(what: str) -> None:
        now = time.perf_counter()
        if not quiet:
            print(f"    {name}: {what} ({now - last[0]:.0f} s)", flush=True)
        last[0] = now
    return stage


def score(seeds: int = 3, budget: float | None = None, diagnose: bool = True, quiet: bool = False,
          part: tuple[int, int] = (0, 1), on_row: Callable[[list[dict]], None] | None = None,
          zoo: Path | None = None, examples: bool = True, isolate: bool = False, tier: str = "default",
          skip: frozenset[str] = frozenset()) -> list[dict]:
    """One row per Spec of ``zoo`` (planted bugs; default tests/zoo_kernels) and examples/ (correct kernels);
    ``part=(k, n)`` takes every n-th Spec from the k-th (to split the run over processes). On a GPU, a planted bug
    whose cases all pass is sanitized (compute-sanitizer's four tools over its edge cases): a bug with right values
    but a wrong access is found there. ``on_row`` is called with the rows so far after each one (a part cut by a time
    limit keeps what it measured). Specs named in ``skip`` (rows an earlier, cut run already has) are left out before
    the parts are dealt."""
    enable_interpreter_if_no_gpu()
    import kcheck
    from kcheck._discover import discover
    from kcheck.diagnose import debug
    from kcheck.sanitize import sanitize

    gpu = torch.cuda.is_available()
    rows = []
    index = -1
    folders = [(zoo or ROOT / "tests" / "zoo_kernels", True)] + ([(ROOT / "examples", False)] if examples else [])
    for folder, buggy in folders:
        founds = list(discover(folder))
        if buggy and founds and all(_bug_class(s, _UNDECLARED) is _UNDECLARED for f in founds for s in f.specs):
            # every Spec would be scored as a control: detection only, no diagnosis (a held-out round lost so)
            raise SystemExit(f"no module of {folder} declares BUG_CLASS (the planted class, or None for a "
                             "control): add it to each file before scoring")
        for found in founds:
            for spec in found.specs:
                if spec.name in skip:
                    continue
                index += 1
                if index % part[1] != part[0]:
                    continue
                # a held-out zoo's controls (BUG_CLASS = None) count as correct kernels
                buggy_here = buggy and not spec.name.endswith("_fixed") and _bug_class(spec) is not None
                t0 = time.perf_counter()
                stage = _stages(spec.name, quiet)
                report = kcheck.check(spec, large=False, seeds=None if buggy_here else seeds, isolate=gpu or isolate,
                                      tier=tier)
                spec_report = report.specs[0]
                stage("checked")
                large = _large_cases(spec, spec_report, seeds=None if buggy_here else seeds) if gpu else "CPU: none"
                seconds = time.perf_counter() - t0
                bad = [c for c in spec_report.cases if not c.ok]
                skipped_all = all(c.status.value == "skipped" for c in spec_report.cases)
                large_skipped = any(c.case.axis == "large" and c.status.value == "skipped" for c in spec_report.cases)
                stage("past-2**31 cases")
                static = _static(spec) if buggy_here else []
                sanitized: list | None = None  # None: not sanitized here (the debugger then decides)
                if gpu and buggy_here and not bad:
                    rep = sanitize(spec, timeout=300)
                    sanitized = [f for t in rep.tools for f in t.findings]
                    seconds = time.perf_counter() - t0
                smallest = min(bad, key=_size) if bad else None
                mechanism = _mechanism(smallest) if smallest else (
                    f"sanitizer ({sanitized[0].tool} {sanitized[0].kind})" if sanitized else
                    f"static check ({static[0].kind})" if static else "-")
                # a bug this machine cannot show: every case skipped here (CUDA C on a CPU), or a past-2**31 case
                # that did not run where the bug needs one (on a CPU only an int32 overflow does); any other bug
                # whose cases all passed is a miss, not "GPU only"
                needs_large = large_skipped and (gpu or _bug_class(spec) == "int32-overflow")
                gpu_only = buggy_here and not bad and not sanitized and (skipped_all or needs_large)
                baselines = None if skipped_all else _baselines_apart(spec) if gpu else (
                    _baseline(kernelbench, spec), _baseline(one_shape, spec))
                stage("baselines")
                row = {
                    "spec": spec.name, "buggy": buggy_here, "class": _bug_class(spec) if buggy_here else None,
                    "kcheck": bool(bad) or bool(static) or bool(sanitized), "ran": bool(bad) or bool(sanitized),
                    "static": bool(static),
                    "gpu_only": gpu_only, "skipped": skipped_all, "mechanism": mechanism,
                    "minimal": smallest.id if smallest else "-", "seconds": seconds,
                    "kernelbench": baselines[0] if baselines else None,
                    "assert_close": baselines[1] if baselines else None,
                    "diagnosis": None, "diagnosis_ok": None, "minimal_debug": None, "debug_seconds": None,
                    "large": large,
                    # how many cases ended each way: a planted bug whose cases were all skipped or untrusted here is
                    # told apart from one whose cases passed
                    "statuses": dict(Counter(c.status.value for c in spec_report.cases)),
                    # why the smallest failing case failed, in words (a control's false positive on a machine since
                    # given back must be readable from the table)
                    "reason": "; ".join(smallest.reasons)[:400] if smallest else "",
                }
                if diagnose and buggy_here and (bad or static or sanitized):
                    diag = debug(spec, report=spec_report, budget=budget, out_dir=ROOT / "kcheck-debug" / "zoo",
                                 repro=True, findings=sanitized)
                    top = diag.top
                    row["diagnosis"] = top.key if top else None
                    row["diagnosis_score"] = top.score if top else None  # >= 0.7 when wrong: a confident wrong cause
                    row["diagnosis_ok"] = bool(top and top.key == row["class"])
                    row["minimal_debug"] = diag.minimal_case
                    row["debug_seconds"] = diag.seconds
                    row["repro"] = diag.notes[-1] if diag.notes else ""
                    # what the ranking rested on, so that a confusion on a machine since given back can be read
                    row["causes"] = [{"key": c.key, "score": c.score, "evidence": c.evidence[:5]}
                                     for c in diag.causes[:3]]
                    row["observations"] = sorted({o.kind for o in diag.observations})
                    stage("diagnosed")
                rows.append(row)
                if on_row is not None:
                    on_row(rows)
                if not quiet:
                    print(f"  {spec.name}: kcheck={'FLAG' if row['kcheck'] else '-'} via {row['mechanism']}; "
                          f"diagnosis {row['diagnosis']} (planted {row['class']})", flush=True)
    return rows


def totals(rows: list[dict]) -> dict[str, float]:
    bugs = [r for r in rows if r["buggy"] and not r["gpu_only"]]
    diagnosed = [r for r in bugs if r["diagnosis"] is not None or r["kcheck"]]
    good = [r for r in rows if not r["buggy"] and not r["skipped"]]
    out = {
        "planted": len([r for r in rows if r["buggy"]]),
        "showable": len(bugs),
        "kcheck_detected": sum(bool(r["kcheck"]) for r in bugs),
        "diagnosis_correct": sum(bool(r["diagnosis_ok"]) for r in diagnosed),
        "kernelbench_detected": sum(bool(r["kernelbench"]) for r in bugs),
        "assert_close_detected": sum(bool(r["assert_close"]) for r in bugs),
        "correct_kernels": len(good),
        "kcheck_false_positives": sum(bool(r["kcheck"]) for r in good),
        "kernelbench_false_positives": sum(bool(r["kernelbench"]) for r in good),
        "assert_close_false_positives": sum(bool(r["assert_close"]) for r in good),
    }
    out["gpu_only_found_statically"] = sum(bool(r["kcheck"]) for r in rows if r["buggy"] and r["gpu_only"])
    out["detection_rate"] = out["kcheck_detected"] / max(out["showable"], 1)
    out["diagnosis_accuracy"] = out["diagnosis_correct"] / max(out["showable"], 1)
    return out


def markdown(rows: list[dict], tot: dict[str, float], where: str) -> str:
    def mark(v: bool | None) -> str:
        return "n/a" if v is None else ("**caught**" if v else "missed")

    lines = [f"### {where}", "",
             "| spec | planted class | kcheck | mechanism | top diagnosis | right? | KernelBench-style | "
             "assert_close | minimal case | s |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["buggy"]:
            kc = ("GPU only" if not r["kcheck"] else "static check only (cases: GPU)") if r["gpu_only"] \
                else mark(r["kcheck"])
            if not r["kcheck"] and r.get("statuses"):  # how its cases ended: passed, or not run or not trusted here
                kc += " (" + ", ".join(f"{n} {s}" for s, n in sorted(r["statuses"].items())) + ")"
            diag = r["diagnosis"] or "-"
            ok = "-" if r["diagnosis_ok"] is None else ("yes" if r["diagnosis_ok"] else "**no**")
        else:
            kc = "n/a (skipped)" if r["skipped"] else ("**FALSE POSITIVE**" if r["kcheck"] else "passes")
            diag, ok = "-", "-"
        secs = r["seconds"] + (r["debug_seconds"] or 0)
        lines.append(f"| {r['spec']} | {r['class'] or 'correct'} | {kc} | {r['mechanism']} | {diag} | {ok} | "
                     f"{mark(r['kernelbench']) if r['buggy'] else ('FP' if r['kernelbench'] else 'passes')} | "
                     f"{mark(r['assert_close']) if r['buggy'] else ('FP' if r['assert_close'] else 'passes')} | "
                     f"`{r['minimal_debug'] or r['minimal']}` | {secs:.0f} |")
    not_large = [f"{r['spec']} ({r['large']})" for r in rows if "skipped" in r.get("large", "")]
    if not_large:
        lines += ["", "Past-2**31 cases that did not run: " + "; ".join(not_large) + "."]
    gpu_only = ", ".join(r["spec"] for r in rows if r["buggy"] and r["gpu_only"]) or "none"
    lines += ["", f"Planted bugs: {tot['planted']}, of which {tot['showable']} can show on this machine "
              f"(the others need a GPU to fail a case: {gpu_only}; the static checks flag "
              f"{tot['gpu_only_found_statically']} of them here)."
              f" kcheck detected {tot['kcheck_detected']}/{tot['showable']}, diagnosis right (top-ranked cause = "
              f"planted class) {tot['diagnosis_correct']}/{tot['showable']}; KernelBench-style "
              f"{tot['kernelbench_detected']}/{tot['showable']}; one-shape assert_close "
              f"{tot['assert_close_detected']}/{tot['showable']}. False positives on the {tot['correct_kernels']} "
              f"correct examples: kcheck {tot['kcheck_false_positives']}, KernelBench-style "
              f"{tot['kernelbench_false_positives']}, assert_close {tot['assert_close_false_positives']}."]
    return "\n".join(lines)


def _spec_names(zoo: Path | None = None, examples: bool = True) -> list[str]:
    from kcheck._discover import discover

    folders = [zoo or ROOT / "tests" / "zoo_kernels"] + ([ROOT / "examples"] if examples else [])
    return [s.name for folder in folders for f in discover(folder) for s in f.specs]


def merged(files: list[str], zoo: Path | None = None, examples: bool | None = None) -> tuple[list[dict], list[str]]:
    """The rows of several parts' ``--json`` outputs (each Spec once), and the Specs of the zoo they scored that no
    part holds (a part cut or dead). The zoo and whether the examples were scored are the parts' own (as they
    recorded them) unless given."""
    import json

    rows: list[dict] = []
    seen: set[str] = set()
    for f in files:
        try:
            data = json.loads(Path(f).read_text())
            part = data["rows"]
        except (OSError, ValueError, KeyError) as exc:  # a part cut while writing: its Specs count as missing
            print(f"{f}: not read ({type(exc).__name__})")
            continue
        if zoo is None and data.get("zoo"):
            zoo = Path(data["zoo"])
        if examples is None and "examples" in data:
            examples = bool(data["examples"])
        for r in part:
            if r["spec"] not in seen:
                seen.add(r["spec"])
                rows.append(r)
    return rows, sorted(set(_spec_names(zoo, examples=examples is not False)) - seen)


def main() -> None:
    import json

    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=3, help="seeds per correct example (false positives)")
    ap.add_argument("--budget", type=float, default=None, help="seconds of experiments per bug (debugger)")
    ap.add_argument("--no-diagnosis", action="store_true")
    ap.add_argument("--tier", default="default", choices=["quick", "default", "full"],
                    help="the matrix kcheck checks each Spec on before the debugger runs (quick: a loaded CPU)")
    ap.add_argument("--markdown", metavar="OUT", help="write the table as Markdown to OUT")
    ap.add_argument("--json", metavar="OUT", help="write rows and totals as JSON to OUT")
    ap.add_argument("--part", default="0/1", metavar="K/N", help="only every N-th Spec from the K-th (parallel runs)")
    ap.add_argument("--merge", nargs="+", metavar="JSON", help="print the table of several --json outputs")
    ap.add_argument("--zoo", metavar="DIR", type=Path, default=None,
                    help="the folder of planted bugs to score (default tests/zoo_kernels)")
    ap.add_argument("--isolate", action="store_true",
                    help="run the cases in workers on the CPU too (a planted bug may corrupt the scoring process)")
    ap.add_argument("--skip-rows", metavar="JSON", nargs="+", default=[],
                    help="leave out the Specs that these --json outputs already have rows for (finish a cut run)")
    ap.add_argument("--no-examples", action="store_true",
                    help="leave out examples/ (the false-positive rows): a held-out zoo carries its own controls")
    ap.add_argument("--baselines", nargs=2, metavar=("FILE", "SPEC"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.baselines:  # the child of _baselines_apart
        enable_interpreter_if_no_gpu()
        _baselines_here(*args.baselines)
        return
    zoo = args.zoo.resolve() if args.zoo is not None else None
    missing: list[str] = []
    if args.merge:
        rows, missing = merged(args.merge, zoo, None if not args.no_examples else False)
    else:
        k, n = (int(v) for v in args.part.split("/"))
        def save(rows: list[dict]) -> None:
            if args.json:  # written whole, then renamed: a part killed mid-write leaves the previous rows
                tmp = Path(args.json + ".tmp")
                # (the zoo the part scored: a merge of the parts lists what is missing from that zoo)
                tmp.write_text(json.dumps({"rows": rows, "totals": totals(rows), "zoo": str(zoo) if zoo else None,
                                           "examples": not args.no_examples}, indent=1, default=str))
                os.replace(tmp, args.json)

        rows = score(args.seeds, args.budget, diagnose=not args.no_diagnosis, part=(k, n), on_row=save, zoo=zoo,
                     examples=not args.no_examples, isolate=args.isolate, tier=args.tier,
                     skip=frozenset(r["spec"] for f in args.skip_rows for r in json.loads(Path(f).read_text())["rows"]))
    tot = totals(rows)
    gpu = torch.cuda.get_device_name().replace("NVIDIA ", "") if torch.cuda.is_available() else None
    where = f"{gpu or 'CPU (Triton interpreter)'}, {time.strftime('%Y-%m-%d')}"
    text = markdown(rows, tot, where)
    if missing:
        text += f"\n\nNot in this table (their part was cut or died): {', '.join(missing)}."
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text + "\n")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "totals": tot}, indent=1, default=str))


if __name__ == "__main__":
    main()
