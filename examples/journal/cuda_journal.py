"""The GPU journal in a CUDA C kernel: a planted NaN named by step, block and warp, blocks that stop early, a
journal too small for what is logged. Run it: ``python examples/journal/cuda_journal.py``. On a GPU the kernel runs
(through kcheck.CudaKernel, which puts <kcheck/journal.cuh> on nvcc's include path) and each scenario checks what
the summary must say, exiting 1 if it does not; on a machine without one the source is compiled for sm_90 only.

One block of 256 threads (8 warps) per row; each thread sums the squares of its column of each 256-wide tile and
every warp journals its threads' running sums after each tile (step = the tile's index): a NaN read by thread 37 of
a row's block shows at that tile's step, in that block, in warp 1.
"""

from __future__ import annotations

import sys

import torch

from kcheck import CudaKernel
from kcheck.journal import Journal, JournalSummary

SOURCE = r"""
#include <kcheck/journal.cuh>

extern "C" __global__ void row_sumsq(const float* __restrict__ x, const int* __restrict__ lengths,
                                     float* __restrict__ out, int stride, KCHECK_JOURNAL_PARAMS) {
    __shared__ float partial[256];
    const int row = blockIdx.x, t = threadIdx.x;
    const int n = lengths[row];  // this row's length: a ragged batch's rows stop after fewer tiles
    const float* xr = x + (long long)row * stride;
    float acc = 0.0f;
    for (int tile = 0; tile * 256 < n; ++tile) {
        const int col = tile * 256 + t;
        const float v = col < n ? xr[col] : 0.0f;
        acc += v * v;
        kcheck_journal(tile, acc);
    }
    partial[t] = acc;
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (t < s) partial[t] += partial[t + s];
        __syncthreads();
    }
    if (t == 0) out[row] = partial[0];
}
"""

THREADS = 256
row_sumsq_kernel = CudaKernel(SOURCE, "row_sumsq", grid=lambda x, lengths, *rest: (x.shape[0],), block=(THREADS,))
#: The same kernel with the journal compiled out: the cost of journaling is the difference.
row_sumsq_plain = CudaKernel(SOURCE, "row_sumsq", grid=lambda x, lengths, *rest: (x.shape[0],), block=(THREADS,),
                             options=("-DKCHECK_JOURNAL_DISABLE",))


def row_sumsq(x: torch.Tensor, lengths: torch.Tensor, journal: Journal | None = None) -> torch.Tensor:
    """Per row, the sum of the squares of its first ``lengths[row]`` elements; journaled when ``journal`` is given."""
    out = torch.empty(x.shape[0], dtype=torch.float32, device=x.device)
    if journal is None:
        row_sumsq_plain(x, lengths, out, x.stride(0), out, 0)  # the journal's arguments, unused
    else:
        row_sumsq_kernel(x, lengths, out, x.stride(0), *journal.args)
    return out


def _inputs(rows: int, cols: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(0)
    x = torch.randn(rows, cols, generator=g).cuda()
    return x, torch.full((rows,), cols, dtype=torch.int32, device="cuda")


def planted_nan(rows: int = 64, tiles: int = 6, bad_row: int = 41, bad_tile: int = 3,
                bad_thread: int = 37) -> tuple[JournalSummary, list[str]]:
    """One NaN read by thread ``bad_thread`` of row ``bad_row``'s block in tile ``bad_tile``: the summary must name
    that step, that block and that thread's warp."""
    x, lengths = _inputs(rows, tiles * THREADS)
    x[bad_row, bad_tile * THREADS + bad_thread] = float("nan")
    j = Journal(8192)
    row_sumsq(x, lengths, j)
    s = j.summary()
    first = s.first_nonfinite
    problems = []
    want = [(bad_row, bad_thread // 32)]
    if first is None or first.step != bad_tile or [(p.block, p.warp) for p in first.places] != want:
        problems.append(f"expected the first NaN at step {bad_tile} in block {bad_row} warp {bad_thread // 32} "
                        f"alone, got {first.describe() if first else 'none'}")
    if s.dropped or not s.guards_intact or s.recorded != rows * tiles * THREADS // 32:
        problems.append(f"expected {rows * tiles * THREADS // 32} entries, none dropped, guards intact")
    return s, problems


def early_exit(rows: int = 32, tiles: int = 5, short: tuple[int, ...] = (3, 20),
               short_tiles: int = 2) -> tuple[JournalSummary, list[str]]:
    """Rows ``short`` hold ``short_tiles`` tiles, the others ``tiles``: every warp of their blocks misses the later
    steps."""
    x, lengths = _inputs(rows, tiles * THREADS)
    lengths[list(short)] = short_tiles * THREADS
    j = Journal(8192)
    row_sumsq(x, lengths, j)
    s = j.summary()
    problems = []
    warps = THREADS // 32
    if s.first_missing != short_tiles:
        problems.append(f"expected the first missing step {short_tiles}, got {s.first_missing}")
    for step in range(short_tiles, tiles):
        st = s.step(step)
        if st is None or st.missing_count != len(short) * warps \
                or not {p.block for p in st.missing} <= set(short):  # the list is cut at MAX_LISTED places
            problems.append(f"step {step}: expected the {warps} warps of blocks {sorted(short)} missing, got "
                            f"{st.missing_count if st else None}")
    if s.first_nonfinite is not None or s.dropped:
        problems.append("no NaN and no drop expected")
    return s, problems


def overflow(rows: int = 128, tiles: int = 4, capacity: int = 100) -> tuple[JournalSummary, list[str]]:
    """``rows * tiles * 8`` appends into ``capacity`` entries: the rest are dropped and counted; the kernel's output
    and the memory around the journal are untouched (run it under compute-sanitizer memcheck as well)."""
    x, lengths = _inputs(rows, tiles * THREADS)
    j = Journal(capacity)
    out = row_sumsq(x, lengths, j)
    s = j.summary()
    appends = rows * tiles * THREADS // 32
    problems = []
    if s.dropped != appends - capacity or s.recorded != capacity:
        problems.append(f"expected {appends - capacity} dropped and {capacity} kept, got {s.dropped} and "
                        f"{s.recorded}")
    if not s.guards_intact or s.unwritten:
        problems.append("the guard words around the journal were overwritten, or a kept slot was never written")
    torch.testing.assert_close(out, (x.double() ** 2).sum(1).float(), rtol=1e-5, atol=1e-4)
    return s, problems


SCENARIOS = {"planted_nan": planted_nan, "early_exit": early_exit, "overflow": overflow}


def main(argv: list[str]) -> int:
    if not torch.cuda.is_available():
        res = row_sumsq_kernel.resources()
        print(f"no GPU: the journaled CUDA C kernel compiled for sm_90 ({res[0].registers} registers; the plain "
              f"build {row_sumsq_plain.resources()[0].registers}); its scenarios run on a GPU only")
        return 0
    failed = 0
    for name in argv or list(SCENARIOS):
        summary, problems = SCENARIOS[name]()
        print(f"== cuda {name} ({torch.cuda.get_device_name()})")
        print(summary.text())
        for p in problems:
            print(f"FAILED: {p}")
        failed += bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
