"""What a parallel check pays before its first case: imports, the forkserver, the workers' starts.

    python benchmarks/startup_cost.py [-n 16]

Prints, each in a fresh interpreter: ``import torch``, ``import triton``, ``import kcheck`` and ``import kcheck.cli``
(what the command line imports before it does anything), then in this process the time from asking for N workers
(the forkserver's own imports, a fork each, each worker's device start) until every worker said it is ready, once
with the forkserver started at that moment and once with it already up.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time


def _fresh(code: str) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", "--workers", type=int, default=16)
    args = ap.parse_args()
    _fresh("pass")
    for code in ("pass", "import torch", "import triton", "import torch, torch._dynamo", "import kcheck",
                 "import kcheck.cli", "import torch; torch.zeros(1, device='cuda' if torch.cuda.is_available() "
                 "else 'cpu')"):
        print(f"{_fresh(code):6.2f} s  python -c {code!r}")

    t0 = time.perf_counter()
    from kcheck import _forkserver
    from kcheck.run import _isolate  # benchmark only: the worker start without a pool around it

    print(f"{time.perf_counter() - t0:6.2f} s  import kcheck.run (this process)")
    for label in ("forkserver started now", "forkserver already up"):
        t = time.perf_counter()
        ctx = _forkserver.context()
        procs = [_isolate._Process(ctx, {}) for _ in range(args.workers)]
        forked = time.perf_counter() - t
        readies = []
        for p in procs:
            assert p.conn.recv()[0] == "ready"
            readies.append(time.perf_counter() - t)
        print(f"{readies[-1]:6.2f} s  {args.workers} workers ready ({label}; all forked after {forked:.2f} s, "
              f"first ready {readies[0]:.2f} s)")
        for p in procs:
            p.conn.send(None)
            p.proc.join(10)


if __name__ == "__main__":
    main()
