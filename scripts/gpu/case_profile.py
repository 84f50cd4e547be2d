"""Where one worker's time goes on its first cases of a Spec, and in a past-2**31 case (GPU machine).

    python3 scripts/gpu/case_profile.py OUT_DIR [SPEC_FILE ...]

In one fresh process (as a new worker is): the seconds of ``import kcheck``, the first CUDA initialization, then for
each Spec file the first three cases in matrix order one after another (a first case pays what a worker pays once
per Spec: importing the module's framework, loading its kernels, the meta probing of the reference's shapes), each
under cProfile; the profile of the first is written to OUT_DIR/<spec>.prof.txt (top 40 by cumulative time). Then
the Spec's past-2**31 cases (also those its memory estimate skips here), each with its peak device memory beside
kcheck's estimate (the estimate decides which run here and which the pool runs side by side), the first
profiled. Default Spec files: the examples' CUDA C block reduction, the training cross-entropy and vector_add.
"""

from __future__ import annotations

import cProfile
import dataclasses
import io
import pstats
import sys
import time
from pathlib import Path

T0 = time.perf_counter()


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    files = sys.argv[2:] or ["examples/cuda_block_reduce.py", "examples/train_cross_entropy.py",
                             "examples/vector_add.py"]
    import torch

    t_torch = time.perf_counter() - T0
    import kcheck
    from kcheck._device import detect, enable_interpreter_if_no_gpu
    from kcheck._discover import discover
    from kcheck.cases import case_bytes
    from kcheck.run import run_case

    print(f"import torch {t_torch:.2f} s, kcheck {time.perf_counter() - T0 - t_torch:.2f} s more")
    t = time.perf_counter()
    enable_interpreter_if_no_gpu()
    dev = detect()
    torch.zeros(1, device="cuda" if torch.cuda.is_available() else "cpu").add_(1)
    print(f"detect() and the first CUDA op: {time.perf_counter() - t:.2f} s")
    for f in files:
        t = time.perf_counter()
        specs = [s for fd in discover(f) if fd.imported for s in fd.specs]
        print(f"== {f}: import {time.perf_counter() - t:.2f} s")
        for spec in specs:
            t = time.perf_counter()
            cases = kcheck.matrix(spec, device=dev)
            print(f"  matrix: {len(cases)} cases, {time.perf_counter() - t:.2f} s")
            runnable = [c for c in cases if c.skip is None]
            # a past-2**31 case the estimate keeps off this GPU runs too: its peak says whether the estimate is right
            # (running out of memory is a skip, and the peak is then what it reached)
            large = [dataclasses.replace(c, skip=None, skip_kind=None) for c in cases
                     if c.axis == "large" and (c.skip is None or "needs at least ~" in c.skip)]
            picks = [c for c in runnable if c.axis != "large"][:3] + large
            for k, case in enumerate(picks):
                prof = cProfile.Profile()
                if torch.cuda.is_available():
                    torch.cuda.reset_peak_memory_stats()
                t = time.perf_counter()
                prof.enable()
                res = run_case(spec, case, dev)
                prof.disable()
                wall = time.perf_counter() - t
                tm = res.timing
                peak = torch.cuda.max_memory_allocated() / 2**30 if torch.cuda.is_available() else 0.0
                print(f"  {wall:6.2f} s {res.status.value:7s} kernel {tm.kernel:.2f} reference {tm.reference:.2f} "
                      f"baseline {tm.baseline:.2f} harness {tm.harness:.2f} peak {peak:.1f} GiB (estimated "
                      f"{case_bytes(spec, case) / 2**30:.1f})  {case.id[:90]}")
                if k == 0 or case is next((c for c in picks if c.axis == "large"), None):
                    buf = io.StringIO()
                    pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(40)
                    name = f"{spec.name}{'_large' if case.axis == 'large' else ''}.prof.txt"
                    (out / name).write_text(buf.getvalue())


if __name__ == "__main__":
    main()
