"""Where the errors lie: tail columns, tail rows, one tile, a stripe, scattered, everywhere."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

_BLOCKS = (16, 32, 64, 128, 256, 512, 1024)


@dataclass(frozen=True)
class Location:
    kind: str  # none | everywhere | tail | tail-columns | tail-rows | tile | block | columns | rows | scattered
    text: str


@dataclass(frozen=True)
class Confined:
    """The errors lie in some slices of one dimension and fill them: along ``dim`` (of ``size``), only ``wrong`` of
    the indices hold a wrong element, and ``density`` of the elements of those slices are wrong. A wrong
    coefficient of one output channel fills that channel's slice, at every size; an index or an edge does not keep
    to whole slices of a dimension whose size stays the same."""

    dim: int
    size: int
    wrong: int
    density: float


#: Per dimension of a mask: (the dimension, its size, which of its slices hold a True, how many do).
SliceHits = list[tuple[int, int, torch.Tensor, int]]


def slice_hits(mask: torch.Tensor) -> SliceHits:
    """One ``any`` per dimension (of size 2 or more) over the boolean mask and a ``count_nonzero`` of it, for
    ``confined`` and ``edge_band`` to share: a ``sum`` of a boolean tensor first copies it whole to int64 (16 GiB
    for a past-2**31 output's mask)."""
    out: SliceHits = []
    for d in range(mask.dim()):
        size = mask.shape[d]
        if size < 2:
            continue
        others = tuple(k for k in range(mask.dim()) if k != d)
        hit = mask.any(dim=others) if others else mask
        out.append((d, size, hit, int(torch.count_nonzero(hit))))
    return out


def confined(mask: torch.Tensor, hits: SliceHits | None = None) -> Confined | None:
    """The dimension (of at least two) whose slices with an error are the densest in errors, when some of its
    slices hold none; None when every dimension has an error in every slice, or there is no error. ``hits``:
    ``slice_hits(mask)``, where the caller has it."""
    bad = int(torch.count_nonzero(mask))
    if bad == 0 or mask.dim() < 2:
        return None
    best: Confined | None = None
    for d, size, _, wrong in slice_hits(mask) if hits is None else hits:
        if wrong == size:
            continue
        density = bad / (wrong * (mask.numel() // size))
        if best is None or density > best.density:
            best = Confined(d, size, wrong, density)
    return best


@dataclass(frozen=True)
class EdgeBand:
    """The wrong elements lie in the first (``end`` "start") or the last ("end") ``width`` slices of dimension
    ``dim`` (of ``size``), and fill ``density`` of those slices' elements. A boundary handled wrong (a window or a
    halo that stops one short at the start of a series, a stencil's last row) keeps to a band of the same width at
    every size; a dropped tail's width moves with the size modulo a block."""

    dim: int
    size: int
    end: str
    width: int
    density: float


#: An edge band covers at most this share of its dimension: past it, the errors are not at an edge.
EDGE_BAND_MAX_SHARE = 0.25
#: Masks larger than this are not searched for an edge band (a past-2**31 output: one ``any`` per dimension each).
EDGE_BAND_MAX_ELEMENTS = 1 << 26


def edge_band(mask: torch.Tensor, hits: SliceHits | None = None) -> EdgeBand | None:
    """The narrowest band of slices at one end of a dimension that holds every wrong element and at least half of
    that band's elements wrong; None when the errors are not so placed (or the mask is past EDGE_BAND_MAX_ELEMENTS).
    ``hits``: ``slice_hits(mask)``, where the caller has it."""
    bad = int(torch.count_nonzero(mask))
    if bad == 0 or mask.numel() > EDGE_BAND_MAX_ELEMENTS:
        return None
    best: EdgeBand | None = None
    for d, size, hit, wrong in slice_hits(mask) if hits is None else hits:
        if size < 4 or wrong > EDGE_BAND_MAX_SHARE * size:
            continue
        # (the wrong slices are the first or the last ``wrong`` ones: two views' ``all``, no index list)
        if bool(hit[:wrong].all()):
            end = "start"
        elif bool(hit[size - wrong:].all()):
            end = "end"
        else:
            continue
        density = bad / (wrong * (mask.numel() // size))
        if density >= 0.5 and (best is None or wrong < best.width):
            best = EdgeBand(d, size, end, wrong, density)
    return best


@dataclass(frozen=True)
class ValueBand:
    """The wrong elements are those whose value in input ``input`` (an input of the output's shape) lies in
    [``lo``, ``hi``]: ``wrong`` of the ``inside`` elements there are wrong, of ``total`` finite ones, and none
    outside. On random data the value of an element says nothing of its place, so a band is a formula that is wrong
    for some values only (one branch's constant or coefficient, a threshold), not an index, a bound or an edge.
    With ``magnitude``, the band is of the values' magnitudes (a branch taken for |x| past a threshold holds both
    tails of the values)."""

    input: int
    lo: float
    hi: float
    wrong: int
    inside: int
    total: int
    magnitude: bool = False  # the band is of the values' magnitudes (|x| past a threshold: both tails)


#: A band must hold this share of the elements whose value lies in it wrong, and leave this share of them out.
BAND_DENSITY = 0.9
BAND_MAX_SHARE = 0.9
BAND_MIN_WRONG = 8
BAND_MAX_ELEMENTS = 1 << 22


def value_band(mask: torch.Tensor, inputs: Sequence[object]) -> ValueBand | None:
    """The first input of the mask's shape whose values of the wrong elements form one band (``ValueBand``);
    None when none does, or past ``BAND_MAX_ELEMENTS`` elements (the float64 copies and passes it takes would add
    a large share to the comparison of a big output)."""
    n = mask.numel()
    if n > BAND_MAX_ELEMENTS:
        return None
    bad = mask.reshape(-1)
    for i, t in enumerate(inputs):
        if not (isinstance(t, torch.Tensor) and t.is_floating_point() and tuple(t.shape) == tuple(mask.shape)):
            continue
        v = t.detach().reshape(-1).to(device=bad.device, dtype=torch.float64)
        keep = torch.isfinite(v)
        w, v = bad[keep], v[keep]
        wrong = int(torch.count_nonzero(w))
        if wrong < BAND_MIN_WRONG:
            continue
        for magnitude, x in ((False, v), (True, v.abs())):
            lo, hi = float(x[w].min()), float(x[w].max())
            inside = int(torch.count_nonzero((x >= lo) & (x <= hi)))
            if wrong >= BAND_DENSITY * inside and inside <= BAND_MAX_SHARE * x.numel():
                return ValueBand(i, lo, hi, wrong, inside, int(x.numel()), magnitude)
    return None


def _span(idx: torch.Tensor) -> tuple[int, int]:
    return int(idx.min()), int(idx.max())


def _tail_blocks(lo: int, hi: int, n: int) -> list[int]:
    """The block sizes B whose last, partial block of a length-n axis holds [lo, hi]: every B whose partial block
    starts exactly at lo (the errors fill it; the data cannot tell a kernel's block of 32 from one of 128 there),
    else the smallest B whose partial block contains the span; [] when none does."""
    if hi != n - 1:
        return []
    fits = [b for b in _BLOCKS if n > b and n % b and lo >= (n // b) * b]
    exact = [b for b in fits if (n // b) * b == lo]
    return exact or fits[:1]


def _past_block(blocks: list[int], n: int) -> str:
    """'past the last full block of 128 (129 = 1x128 + 1)', naming every block size that fits."""
    b = blocks[-1]
    sizes = str(b) if len(blocks) == 1 else ", ".join(map(str, blocks[:-1])) + f" or {b}"
    return f"past the last full block of {sizes} ({n} = {n // b}x{b} + {n % b})"


def _fmt_list(idx: torch.Tensor, limit: int = 6) -> str:
    vals = [int(v) for v in idx[:limit]]
    more = f", ... ({idx.numel()} in all)" if idx.numel() > limit else ""
    return ", ".join(map(str, vals)) + more


def locate(mask: torch.Tensor) -> Location:
    """Describe the positions where ``mask`` (True = wrong element) is set."""
    total = mask.numel()
    bad = int(mask.sum())
    if bad == 0:
        return Location("none", "no mismatches")
    if bad == total or (bad * 2 > total and total > 8):
        return Location("everywhere", f"everywhere ({100 * bad / total:.0f}% of elements)")
    if mask.dim() <= 1:
        return _locate_1d(mask.reshape(-1))
    m2 = mask.reshape(-1, mask.shape[-1])
    return _locate_2d(m2, rows_name="rows" if mask.dim() == 2 else "rows (leading dims flattened)")


def _locate_1d(mask: torch.Tensor) -> Location:
    n = mask.numel()
    idx = mask.nonzero().view(-1)
    lo, hi = _span(idx)
    blocks = _tail_blocks(lo, hi, n)
    if blocks:
        return Location("tail", f"tail: elements {lo}..{hi}, {_past_block(blocks, n)}")
    if hi == n - 1 and idx.numel() == hi - lo + 1:
        return Location("tail", f"tail: the last {idx.numel()} elements ({lo}..{hi})")
    for blk in _BLOCKS:
        if blk < n and lo // blk == hi // blk and idx.numel() > 1:
            start = (lo // blk) * blk
            return Location("block", f"one block: elements {lo}..{hi}, inside block [{start}, {start + blk}) of {blk}")
    return Location("scattered", f"scattered: {idx.numel()} elements between {lo} and {hi} (first: {_fmt_list(idx)})")


def _flat_tail(m: torch.Tensor) -> Location | None:
    """The wrong elements are exactly the last partial block of the tensor read flat (row-major), as a 1-D launch
    over all of its elements leaves them when its grid rounds down: rows past some point and part of the row before
    them, which no row or column pattern names. None otherwise."""
    flat = m.reshape(-1)
    n = flat.numel()
    idx = flat.nonzero().view(-1)
    lo, hi = _span(idx)
    if hi != n - 1 or idx.numel() != hi - lo + 1:
        return None
    blocks = _tail_blocks(lo, hi, n)
    if not blocks or (n // blocks[-1]) * blocks[-1] != lo:
        return None
    return Location("tail", f"tail of the tensor read flat: elements {lo}..{hi} in row-major order, "
                            f"{_past_block(blocks, n)}")


def _locate_2d(m: torch.Tensor, rows_name: str) -> Location:
    nrows, ncols = m.shape
    rows = m.any(dim=1).nonzero().view(-1)
    cols = m.any(dim=0).nonzero().view(-1)
    r0, r1 = _span(rows)
    c0, c1 = _span(cols)
    row_txt = "every row" if rows.numel() == nrows else f"{rows.numel()} of {nrows} {rows_name}"
    col_txt = "every column" if cols.numel() == ncols else f"{cols.numel()} of {ncols} columns"
    bc = _tail_blocks(c0, c1, ncols)
    if c0 == c1 == ncols - 1 and ncols > 1 and (not bc or (ncols // bc[-1]) * bc[-1] != c0):
        return Location("tail-columns", f"the last column ({c1}), in {row_txt}")
    br = _tail_blocks(r0, r1, nrows)
    if r0 == r1 == nrows - 1 and nrows > 1 and (not br or (nrows // br[-1]) * br[-1] != r0):
        return Location("tail-rows", f"the last row ({r1}), in {col_txt}")
    if bc:
        return Location("tail-columns", f"tail columns {c0}..{c1}, {_past_block(bc, ncols)}, in {row_txt}")
    if br:
        return Location("tail-rows", f"tail rows {r0}..{r1}, {_past_block(br, nrows)}, in {col_txt}")
    flat = _flat_tail(m)
    if flat is not None:
        return flat
    for t in _BLOCKS:
        if r0 // t == r1 // t and c0 // t == c1 // t and (nrows > t or ncols > t):
            return Location("tile", f"one tile: rows {r0}..{r1}, columns {c0}..{c1} (tile ({r0 // t}, {c0 // t}) "
                                    f"of {t}x{t})")
    if cols.numel() <= max(1, ncols // 8) and rows.numel() > nrows // 2:
        return Location("columns", f"a stripe of columns {_fmt_list(cols)}, in {row_txt}")
    if rows.numel() <= max(1, nrows // 8) and cols.numel() > ncols // 2:
        return Location("rows", f"a stripe of rows {_fmt_list(rows)}, in {col_txt}")
    return Location("scattered", f"scattered: {int(m.sum())} elements in {row_txt} and {col_txt}")
