"""What parallel workers cost and gain, and a check that they give the same verdicts as one worker.

    python benchmarks/parallel_cost.py [LOG_DIR] [--paths examples] [--budget 15] [--speedup 1.7] [--workers 2,auto]
                                       [--crash-only]

LOG_DIR defaults to $OUT (else ./parallel_cost_logs). Each figure is printed and the command lines' output written
under LOG_DIR. Exits non-zero when an expectation fails:

1. **crash cost**: a Spec whose kernel calls ``os.abort()`` in every case, run isolated in one worker, with workers
   started by ``spawn`` and by kcheck's default (a preloaded forkserver and a warm spare after a death): seconds per
   case each way; the default must stay at or under 1 s per case.
2. **same verdicts, faster**: ``kcheck check PATHS`` with one worker and with ``-n 2`` and ``-n auto``, each with
   cold compile caches (a fresh ``TRITON_CACHE_DIR`` and ``KCHECK_CACHE_DIR``): the same case ids and statuses in the
   same order; wall seconds of each. On a GPU, ``-n auto`` must finish in at most 15 s (``--budget``).
3. **many GPUs** (2 or more): ``-n auto`` pinned to the first GPU against all GPUs (must be at least 1.7x faster);
   each worker must see exactly one GPU, and every GPU must have run cases (a probe Spec records what it sees).
4. **pytest-xdist**: ``pytest -n N`` with kcheck's plugin over a probe Spec: every case passes exactly once (nothing
   collected twice), and with 2 or more GPUs every GPU ran cases.

Without a GPU the same steps run on the CPU (the examples' quick tier, parts 3 skipped) so the logic is exercised.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_PROBES = textwrap.dedent('''
    import json
    import os
    import uuid

    import torch

    import kcheck

    LOG = os.environ.get("KCHECK_PROBE_LOG", "")


    def aborts(x):
        os.abort()


    def where(x):
        """Record which GPUs this worker sees, then compute the right answer."""
        seen = {"pid": os.getpid(), "visible": os.environ.get("CUDA_VISIBLE_DEVICES"),
                "count": torch.cuda.device_count() if torch.cuda.is_available() else 0,
                "uuid": str(torch.cuda.get_device_properties(0).uuid) if torch.cuda.is_available() else None,
                "n": x.numel()}
        if LOG:
            with open(os.path.join(LOG, f"{uuid.uuid4().hex}.json"), "w") as fh:
                json.dump(seen, fh)
        return torch.neg(x)


    crash = kcheck.Spec(name="crash_every_case", kernel=aborts, reference=torch.neg, inputs=[kcheck.Tensor("N")],
                        dims={"N": kcheck.Dim(nominal=64)})
    probe = kcheck.Spec(name="probe", kernel=where, reference=torch.neg, inputs=[kcheck.Tensor("N")],
                        dims={"N": kcheck.Dim(nominal=4096)})
''')


def gpus() -> list[str]:
    import torch

    if not torch.cuda.is_available():
        return []
    return [str(i) for i in range(torch.cuda.device_count())]


def crash_cost(probes: Path, log: Path) -> tuple[float, float, int]:
    """Seconds per case of the crash-every-case Spec with spawn and with the default start."""
    code = textwrap.dedent(f'''
        import sys, time
        sys.path.insert(0, {str(probes.parent)!r})
        import kcheck
        from kcheck._device import enable_interpreter_if_no_gpu
        enable_interpreter_if_no_gpu()
        import parallel_probes as p
        n = len([c for c in kcheck.matrix(p.crash, tier="quick", large=False) if c.skip is None])
        t0 = time.perf_counter()
        r = kcheck.check(p.crash, tier="quick", large=False, isolate=True)
        dt = time.perf_counter() - t0
        crashed = sum(c.status.value == "crashed" for c in r.cases)
        assert crashed == n, (crashed, n)
        print(dt, n)
    ''')
    out = {}
    for method in ("spawn", "forkserver"):
        env = dict(os.environ, KCHECK_WORKER_START=method)
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
        (log / f"crash_{method}.log").write_text(proc.stdout + proc.stderr)
        if proc.returncode != 0:
            raise SystemExit(f"crash-cost run ({method}) failed: {proc.stderr[-2000:]}")
        seconds, n = proc.stdout.split()
        out[method] = float(seconds) / int(n)
    return out["spawn"], out["forkserver"], int(n)


def check_run(paths: list[str], workers: str, log: Path, tag: str, env: dict[str, str] | None = None,
              tier: str | None = None) -> tuple[float, list[tuple[str, str, str]]]:
    """``kcheck check`` with cold compile caches: wall seconds and (spec, case id, status) in report order."""
    cold = Path(tempfile.mkdtemp(prefix=f"kcheck-cold-{tag}-"))
    run_env = dict(os.environ, **(env or {}), TRITON_CACHE_DIR=str(cold / "triton"), KCHECK_CACHE_DIR=str(cold / "k"))
    json_out = log / f"{tag}.json"
    argv = [sys.executable, "-m", "kcheck.cli", "check", *paths, "-n", workers, "--json", str(json_out), "--quiet"]
    if tier:
        argv += ["--tier", tier]
    t0 = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=run_env, cwd=ROOT)
    seconds = time.perf_counter() - t0
    (log / f"{tag}.log").write_text(" ".join(argv) + "\n" + proc.stdout + proc.stderr)
    if proc.returncode not in (0, 1) or not json_out.exists():
        raise SystemExit(f"`{' '.join(argv)}` exited {proc.returncode}; see {log / (tag + '.log')}")
    report = json.loads(json_out.read_text())
    rows = [(s["name"], c["id"], c["status"]) for s in report["specs"] for c in s["cases"]]
    return seconds, rows


def probe_seen(log: Path) -> list[dict[str, object]]:
    return [json.loads(p.read_text()) for p in sorted(log.glob("*.json"))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("log", nargs="?", default=os.environ.get("OUT") or "parallel_cost_logs")
    ap.add_argument("--paths", nargs="*", default=["examples"])
    ap.add_argument("--budget", type=float, default=15.0, help="seconds -n auto may take on a GPU")
    ap.add_argument("--speedup", type=float, default=1.7, help="least speed-up of all GPUs over one")
    ap.add_argument("--workers", default="2,auto", help="worker counts to compare with one worker (comma-separated)")
    ap.add_argument("--crash-only", action="store_true", help="measure the crash cost (step 1) only")
    args = ap.parse_args()
    log = Path(args.log).resolve()
    log.mkdir(parents=True, exist_ok=True)
    failures: list[str] = []
    found = gpus()
    print(f"GPUs: {len(found)}, CPUs: {os.cpu_count()}")

    probes_dir = Path(tempfile.mkdtemp(prefix="kcheck-probes-"))
    probes = probes_dir / "parallel_probes.py"
    probes.write_text(_PROBES)

    # 1. crash cost
    spawn, default, n = crash_cost(probes, log)
    print(f"crash cost: {n} crashing cases, spawn {spawn:.2f} s per case, default (forkserver + spare) "
          f"{default:.2f} s per case")
    if default > 1.0:
        failures.append(f"a crashing case costs {default:.2f} s > 1 s")
    if args.crash_only:
        print("\n".join(failures) or "ok")
        return 1 if failures else 0

    # 2. same verdicts, faster (the CPU runs the quick tier of vector_add only: the interpreter is slow)
    paths = args.paths if found else ["examples/vector_add.py", "examples/softmax.py"]
    tier = None if found else "quick"
    t1, one = check_run(paths, "1", log, "one_worker", tier=tier)
    print(f"kcheck check {' '.join(paths)} -n 1: {t1:.1f} s, {len(one)} cases")
    for workers in args.workers.split(","):
        tn, many = check_run(paths, workers, log, f"workers_{workers}", tier=tier)
        same = many == one
        print(f"kcheck check {' '.join(paths)} -n {workers}: {tn:.1f} s ({t1 / tn:.2f}x), same report: {same}")
        if not same:
            diff = [(a, b) for a, b in zip(one, many, strict=False) if a != b][:5]
            failures.append(f"-n {workers} gave another report than one worker (first differences: {diff}, "
                            f"{len(one)} vs {len(many)} cases)")
        if found and workers == "auto" and tn > args.budget:
            failures.append(f"-n auto took {tn:.1f} s > {args.budget:g} s")

    # 3. many GPUs
    if len(found) >= 2:
        ta, _ = check_run(args.paths, "auto", log, "one_gpu", env={"CUDA_VISIBLE_DEVICES": found[0]})
        tb, _ = check_run(args.paths, "auto", log, "all_gpus")
        print(f"-n auto on 1 GPU: {ta:.1f} s, on {len(found)} GPUs: {tb:.1f} s ({ta / tb:.2f}x)")
        if ta / tb < args.speedup:
            failures.append(f"{len(found)} GPUs only {ta / tb:.2f}x faster than one (< {args.speedup})")
        seen_dir = log / "probe_check"
        seen_dir.mkdir(exist_ok=True)
        env = dict(os.environ, KCHECK_PROBE_LOG=str(seen_dir), PYTHONPATH=str(probes_dir))
        subprocess.run([sys.executable, "-m", "kcheck.cli", "check", str(probes), "--spec", "probe", "-n", "auto",
                        "--quiet"], env=env, cwd=ROOT, capture_output=True)
        seen = probe_seen(seen_dir)
        counts = {s["count"] for s in seen}
        uuids = {s["uuid"] for s in seen}
        print(f"probe under -n auto: {len(seen)} launches, GPUs seen per worker {sorted(counts)}, distinct GPUs "
              f"{len(uuids)}")
        if counts != {1} or len(uuids) != len(found):
            failures.append(f"pinning: workers saw {sorted(counts)} GPUs each, {len(uuids)} distinct of {len(found)}")
    else:
        print("many GPUs: skipped (fewer than 2 GPUs)")

    # 4. pytest-xdist
    try:
        import xdist  # noqa: F401
    except ImportError:
        print("pytest-xdist: skipped (not installed)")
    else:
        seen_dir = log / "probe_xdist"
        seen_dir.mkdir(exist_ok=True)
        test = probes_dir / "test_probe.py"
        test.write_text("from parallel_probes import probe\n")
        n_xdist = str(max(2, len(found)))
        env = dict(os.environ, KCHECK_PROBE_LOG=str(seen_dir), PYTHONPATH=str(probes_dir))
        proc = subprocess.run([sys.executable, "-m", "pytest", str(test), "-n", n_xdist, "-q", "-p", "no:cacheprovider",
                               "--kcheck-tier", "quick", "-rA"], env=env, cwd=probes_dir, capture_output=True,
                              text=True)
        (log / "xdist.log").write_text(proc.stdout + proc.stderr)
        passed = [ln for ln in proc.stdout.splitlines() if ln.startswith("PASSED ")]
        ids = [ln.split("::")[-1] for ln in passed]
        seen = probe_seen(seen_dir)
        print(f"pytest -n {n_xdist}: exit {proc.returncode}, {len(ids)} cases passed, {len(set(ids))} distinct, "
              f"{len({s['pid'] for s in seen})} processes ran them, GPUs {sorted({str(s['visible']) for s in seen})}")
        if proc.returncode != 0 or not ids or len(ids) != len(set(ids)):
            failures.append(f"pytest -n {n_xdist}: exit {proc.returncode}, {len(ids)} passed, {len(set(ids))} distinct")
        if len(found) >= 2 and len({s["uuid"] for s in seen}) != len(found):
            failures.append("pytest-xdist workers did not spread over every GPU")

    for f in failures:
        print(f"FAILED: {f}")
    print(f"logs: {log}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
