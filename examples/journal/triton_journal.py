"""The GPU journal in Triton kernels: a planted NaN named by step and block, blocks that stop early, a journal too
small for what is logged. Run it: ``python examples/journal/triton_journal.py`` (a GPU, or Triton's interpreter on
a machine without one). Each scenario checks what the summary must say and the script exits 1 if it does not.

The kernel sums the squares of each row tile by tile, one program per row, and journals its running sum after each
tile (step = the tile's index), so a NaN read at one tile shows at that step in that row's block.
"""

# ruff: noqa: I001 (kcheck.journal is imported before triton on purpose)
from __future__ import annotations

import sys

# first: on a machine without a GPU this turns Triton's interpreter on before triton decorates its own functions
from kcheck.journal import Journal, JournalSummary, log
import torch
import triton
import triton.language as tl


@triton.jit
def row_sumsq_kernel(x_ptr, lengths_ptr, out_ptr, stride, journal, journal_cap, BLOCK: tl.constexpr,
                     JOURNAL: tl.constexpr):
    row = tl.program_id(0)
    n = tl.load(lengths_ptr + row)  # this row's length: a ragged batch's rows stop after fewer tiles
    base = x_ptr + row.to(tl.int64) * stride
    acc = tl.zeros((), dtype=tl.float32)
    for tile in range(0, tl.cdiv(n, BLOCK)):
        offs = tile * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(base + offs, mask=offs < n, other=0.0)
        acc += tl.sum(x * x)
        if JOURNAL:
            log(journal, journal_cap, tile, acc)
    tl.store(out_ptr + row, acc)


def row_sumsq(x: torch.Tensor, lengths: torch.Tensor, journal: Journal | None = None, BLOCK: int = 64) -> torch.Tensor:
    """Per row, the sum of the squares of its first ``lengths[row]`` elements; journaled when ``journal`` is given."""
    out = torch.empty(x.shape[0], dtype=torch.float32, device=x.device)
    args = journal.args if journal is not None else (out, 0)  # unused when JOURNAL is off
    row_sumsq_kernel[(x.shape[0],)](x, lengths, out, x.stride(0), *args, BLOCK=BLOCK, JOURNAL=journal is not None)
    return out


def _inputs(rows: int, cols: int, device: str) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(0)
    x = torch.randn(rows, cols, generator=g).to(device)
    return x, torch.full((rows,), cols, dtype=torch.int32, device=device)


def planted_nan(device: str, rows: int = 16, block: int = 64, tiles: int = 6, bad_row: int = 5,
                bad_tile: int = 3) -> tuple[JournalSummary, list[str]]:
    """One NaN in row ``bad_row`` inside tile ``bad_tile``: the summary must name that step and that block."""
    x, lengths = _inputs(rows, tiles * block, device)
    x[bad_row, bad_tile * block + 7] = float("nan")
    j = Journal(1024, device=device)
    row_sumsq(x, lengths, j, BLOCK=block)
    s = j.summary()
    first = s.first_nonfinite
    problems = []
    if first is None or first.step != bad_tile or [p.block for p in first.places] != [bad_row]:
        problems.append(f"expected the first NaN at step {bad_tile} in block {bad_row} alone, got "
                        f"{first.describe() if first else 'none'}")
    if s.dropped or not s.guards_intact:
        problems.append("no entry should be dropped and the guards must be intact")
    return s, problems


def early_exit(device: str, rows: int = 12, block: int = 64, tiles: int = 5,
               short: tuple[int, ...] = (2, 7), short_tiles: int = 2) -> tuple[JournalSummary, list[str]]:
    """Rows ``short`` hold ``short_tiles`` tiles, the others ``tiles``: their blocks never reach the later steps."""
    x, lengths = _inputs(rows, tiles * block, device)
    lengths[list(short)] = short_tiles * block
    j = Journal(1024, device=device)
    row_sumsq(x, lengths, j, BLOCK=block)
    s = j.summary()
    problems = []
    if s.first_missing != short_tiles:
        problems.append(f"expected the first missing step {short_tiles}, got {s.first_missing}")
    for step in range(short_tiles, tiles):
        st = s.step(step)
        got = sorted(p.block for p in st.missing) if st else None
        if got != sorted(short):
            problems.append(f"step {step}: expected blocks {sorted(short)} missing, got {got}")
    if s.first_nonfinite is not None or s.dropped:
        problems.append("no NaN and no drop expected")
    return s, problems


def overflow(device: str, rows: int = 32, block: int = 64, tiles: int = 4,
             capacity: int = 20) -> tuple[JournalSummary, list[str]]:
    """``rows * tiles`` appends into ``capacity`` entries: the rest are dropped and counted; the kernel's output
    and the memory around the journal are untouched."""
    x, lengths = _inputs(rows, tiles * block, device)
    j = Journal(capacity, device=device)
    out = row_sumsq(x, lengths, j, BLOCK=block)
    s = j.summary()
    problems = []
    if s.dropped != rows * tiles - capacity or s.recorded != capacity:
        problems.append(f"expected {rows * tiles - capacity} dropped and {capacity} kept, got {s.dropped} and "
                        f"{s.recorded}")
    if not s.guards_intact:
        problems.append("the guard words around the journal were overwritten")
    torch.testing.assert_close(out, (x.double() ** 2).sum(1).float(), rtol=1e-5, atol=1e-4)
    return s, problems


SCENARIOS = {"planted_nan": planted_nan, "early_exit": early_exit, "overflow": overflow}


def main(argv: list[str]) -> int:
    device = "cuda" if torch.cuda.is_available() else "cpu"
    names = argv or list(SCENARIOS)
    failed = 0
    for name in names:
        summary, problems = SCENARIOS[name](device)
        print(f"== triton {name} ({device}{', interpreter' if device == 'cpu' else ''})")
        print(summary.text())
        for p in problems:
            print(f"FAILED: {p}")
        failed += bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
