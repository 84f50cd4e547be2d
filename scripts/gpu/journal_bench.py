"""The cost of the GPU journal: kernel time with and without journaling, Triton and CUDA C.

    python scripts/gpu/journal_bench.py OUT_DIR

The kernels are the examples' row sums of squares (examples/journal/): one program (Triton) or one block of 8 warps
(CUDA C) per row of a 8192 x 8192 fp32 matrix, journaling its running sum after each tile. Each kernel is timed
with ``triton.testing.do_bench`` (median), the journal's counter set to 0 before every call (an appended journal
stays the same size; the plain kernel's call zeroes a word as well, so both time the same extra launch), at two tile
widths (more tiles: more appends) and with a journal large enough for every append or one that drops nearly all of
them (only the atomic remains). Writes OUT_DIR/journal_cost.json and prints a table; exits 1 if a journaled
kernel's output differs from the plain one's or an append was lost. On a machine without a GPU it times a tiny case
in Triton's interpreter with a wall clock, to exercise the script (the numbers mean nothing there).
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import torch

from kcheck.journal import Journal  # before the examples import triton: the interpreter where there is no GPU

ROOT = Path(__file__).resolve().parents[2]


def _example(name: str) -> Any:
    path = ROOT / "examples" / "journal" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"journal_example_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _time(fn: Any, gpu: bool) -> float:
    """Milliseconds per call: do_bench's median on a GPU, a wall-clock mean of 3 calls in the interpreter."""
    if gpu:
        from triton.testing import do_bench

        return float(do_bench(fn, warmup=25, rep=200, return_mode="median"))
    fn()
    t0 = time.perf_counter()
    for _ in range(3):
        fn()
    return (time.perf_counter() - t0) / 3 * 1e3


def main(argv: list[str]) -> int:
    out_dir = Path(argv[0] if argv else os.environ.get("OUT", "journal-out"))
    out_dir.mkdir(parents=True, exist_ok=True)
    gpu = torch.cuda.is_available()
    dev = "cuda" if gpu else "cpu"
    rows, cols = (8192, 8192) if gpu else (8, 512)
    g = torch.Generator(device="cpu").manual_seed(0)
    x = torch.randn(rows, cols, generator=g).to(dev)
    lengths = torch.full((rows,), cols, dtype=torch.int32, device=dev)
    tri = _example("triton_journal")
    kernels: list[tuple[str, int, int, Any, Any]] = []  # (framework, tile width, appends, plain, journaled)
    for block in ((1024, 128) if gpu else (128,)):
        kernels.append(("triton", block, rows * (cols // block),
                        lambda block=block: tri.row_sumsq(x, lengths, None, BLOCK=block),
                        lambda j, block=block: tri.row_sumsq(x, lengths, j, BLOCK=block)))
    if gpu:
        cu = _example("cuda_journal")
        kernels.append(("cuda", cu.THREADS, rows * (cols // cu.THREADS) * (cu.THREADS // 32),
                        lambda: cu.row_sumsq(x, lengths, None), lambda j: cu.row_sumsq(x, lengths, j)))
    rows_out: list[dict[str, Any]] = []
    failed: list[str] = []
    scratch = torch.zeros(1, dtype=torch.int32, device=dev)
    for fw, block, appends, plain, journaled in kernels:
        expected = plain()
        t_plain = _time(lambda plain=plain: (scratch.zero_(), plain()), gpu)
        for capacity in (appends, max(1, min(1024, appends // 4))):
            j = Journal(capacity, device=dev)
            got = journaled(j)
            if not torch.allclose(got, expected, rtol=1e-5, atol=0.0):
                failed.append(f"{fw} tile {block}: the journaled kernel's output differs from the plain one's")
            elif not torch.equal(got, expected):
                print(f"note: {fw} tile {block}: the journaled output is within 1e-5 of the plain one, not bitwise")
            if j.attempted != appends or j.dropped != max(0, appends - capacity) or not j.guards_intact:
                failed.append(f"{fw} tile {block} capacity {capacity}: {j.attempted} appends (want {appends}), "
                              f"{j.dropped} dropped, guards {'intact' if j.guards_intact else 'OVERWRITTEN'}")
            counter = j.buffer[:1]
            t_j = _time(lambda journaled=journaled, j=j, counter=counter: (counter.zero_(), journaled(j)), gpu)
            rows_out.append({"framework": fw, "tile": block, "appends": appends, "capacity": capacity,
                             "kept": min(appends, capacity), "plain_ms": t_plain, "journaled_ms": t_j,
                             "overhead": t_j / t_plain - 1.0,
                             "ns_per_append": (t_j - t_plain) * 1e6 / appends})
    device = torch.cuda.get_device_name() if gpu else "CPU (Triton interpreter: wall clock, not a cost)"
    print(f"journal cost on {device}: {rows} x {cols} fp32, row sums of squares, a journal entry per tile")
    print(f"{'kernel':<8} {'tile':>5} {'appends':>9} {'kept':>9} {'plain ms':>9} {'journal ms':>10} {'overhead':>9} "
          f"{'ns/append':>9}")
    for r in rows_out:
        print(f"{r['framework']:<8} {r['tile']:>5} {r['appends']:>9} {r['kept']:>9} {r['plain_ms']:>9.4f} "
              f"{r['journaled_ms']:>10.4f} {r['overhead']:>8.1%} {r['ns_per_append']:>9.3f}")
    (out_dir / "journal_cost.json").write_text(json.dumps({"device": device, "rows": rows, "cols": cols,
                                                           "results": rows_out, "failed": failed}, indent=1))
    for f in failed:
        print(f"FAILED: {f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
