"""Error maps: where in an output the kernel is wrong, as a PNG a reader takes in at a glance.

``case_tensors`` re-runs one case exactly as ``kcheck.check`` does (same inputs, poisoned outputs, float64 reference
on upcast inputs, the interpreter's checks in Triton's interpreter) and returns each output with its reference.
``error_map`` draws |actual - expected| / rms(expected) on a log colour scale:

- elements within the tolerance (when one is given) in grey, those outside it in the hot colours of the colour bar;
- elements never written (still the poison written before the call) and NaN/Inf where the reference differs in
  their own, labelled colours (cyan, green), whatever their number;
- a 1-D output as a near-square grid (row-major; the title says how), a >2-D one with its leading dims flattened;
- outputs larger than the drawing max-pooled per block, worst element first, so that no bad element disappears;
- beside the map, the worst error per column (top) and per row (right): a bad edge or column is a spike there;
- with ``tile``, the tile grid as thin lines, so a bad tile or a bad edge is plain.

matplotlib draws through its Agg canvas only (no pyplot, no display, the global backend untouched).
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from .._device import detect, enable_interpreter_if_no_gpu, interpreter_active
from .._errors import EnvironmentProblem
from ..cases import Case
from ..compare import Tolerance, expected_in, mismatch_mask, reduction_length, rms, tolerance_for
from ..run import AMBIGUOUS, RunOptions, cannot_run, execute, unwritten_mask

if TYPE_CHECKING:
    from .._results import CaseResult
    from .._spec import Spec

# category of each element, in the order max-pooling keeps them (the higher wins a pooled pixel)
_PAD, _OK, _BAD, _NONFINITE, _UNWRITTEN = 0, 1, 2, 3, 4
_COLOURS = {_PAD: "#ffffff", _NONFINITE: "#00c853", _UNWRITTEN: "#00e5ff"}
_OUTSIDE = "#e65100"  # the legend's "outside tolerance" swatch and the outline of narrow runs of such elements
_KEEP = ("#ffffff", "#000000", "#00c853", "#00e5ff", _OUTSIDE, "#1565c0", "#d50000", "#c8c8c8", "#9e9e9e",
         "#ffb74d", "#b71c1c", "#424242", "#006064", "#333333")
_MAP_PX = 720  # the map's longer side on screen; larger outputs are max-pooled down to it
_MIN_PX = 240
_DPI = 100
_LINE_GAP_PX = 3  # tile lines closer than this on screen are left out (they would paint the map)
_MIN_SPAN_PX = 6  # a run of bad columns or rows is shaded (outlined on the map) at least this wide
_MAX_OUTLINES = 12  # more narrow runs than this are a pattern the map shows by itself
_MAX_RINGS = 24  # as many wrong elements (pooled pixels) or fewer are ringed
_BAND = 0.22  # the outer part of the side plots that flags the columns (rows) holding wrong elements

_TILE_KEYS_M = ("BLOCK_M", "BLOCK_SIZE_M", "BLOCK_ROWS", "TILE_M", "BM")
_TILE_KEYS_N = ("BLOCK_N", "BLOCK_SIZE_N", "BLOCK_COLS", "TILE_N", "BN")
_TILE_KEYS_1D = ("BLOCK_SIZE", "BLOCK", "TILE", "XBLOCK")


# --------------------------------------------------------------------------------------------------- re-running

def case_tensors(spec: Spec, case: Case, device: str | None = None, *,
                 options: RunOptions | None = None) -> list[tuple[str, torch.Tensor, torch.Tensor]]:
    """Re-run ``case`` of ``spec`` and return ``(output name, actual, expected)`` per output, on the CPU.

    The inputs are built as ``kcheck.check`` builds them (``make_args``), the reference runs on their float64
    upcast before the kernel runs, and the kernel runs with poisoned outputs (and, in Triton's interpreter, under
    kcheck's memory checks, which mask an out-of-bounds lane off as a checked run does). ``actual`` keeps the
    kernel's dtype, so the poison of unwritten elements is still there; ``expected`` is float64. Names are those of
    the report ("output 0", ...). Raises ``EnvironmentProblem`` when the case cannot run on this machine.
    """
    enable_interpreter_if_no_gpu()
    dev = detect()
    if device is not None and device != dev.device:
        dev = dataclasses.replace(dev, device=device, interpreter=device == "cpu" and interpreter_active())
    skip = cannot_run(spec, case, dev)
    if skip is not None:
        raise EnvironmentProblem(f"{case.id} cannot run here: {skip[0]}")
    ex = execute(spec, case, dev, options, baseline=False)
    if ex.exception is not None:
        raise ex.exception
    return [(f"output {i}", out.detach().cpu(), exp.detach().cpu())
            for i, (out, exp) in enumerate(zip(ex.outputs, ex.expected, strict=False))]


def tile_of(case: Case) -> tuple[int, ...] | None:
    """The tile a case's launch configuration names, if it names one: ``(BLOCK_M, BLOCK_N)`` for a 2-D tile,
    ``(BLOCK,)`` for a 1-D block; ``0`` on an axis the configuration does not tile (``(0, BLOCK_N)``: a row kernel
    whose programs take column chunks). A guess from the names: a launcher may clamp the value (to the size)."""
    cfg = {str(k).upper(): v for k, v in case.config_dict.items()}

    def pick(keys: Sequence[str]) -> int:
        for k in keys:
            v = cfg.get(k)
            if isinstance(v, int) and not isinstance(v, bool) and v > 0:
                return v
        return 0

    m, n, b = pick(_TILE_KEYS_M), pick(_TILE_KEYS_N), pick(_TILE_KEYS_1D)
    if m or n:
        return (m, n)
    if b:
        return (b,)
    return None


def _tile_for(tile: int | Sequence[int] | None, ndim: int) -> tuple[int, ...] | None:
    """The tile as it applies to an output of ``ndim`` dims: a 1-D block on a 2-D output tiles its columns; a 2-D
    tile says nothing of a 1-D output (the reduction's chunk, not the output's)."""
    if tile is None:
        return None
    t = (int(tile),) if isinstance(tile, int) else tuple(int(v) for v in tile)
    if not t or any(v < 0 for v in t):
        return None
    if ndim <= 1:
        return t if len(t) == 1 and t[0] > 0 else None
    if len(t) == 1:
        return (0, t[0])
    return t[-2:]


def maps_for_case(spec: Spec, case: Case, out_dir: str | Path, *, result: CaseResult | None = None,
                  device: str | None = None, options: RunOptions | None = None) -> list[Path]:
    """Re-run ``case`` and write one error map per failing output into ``out_dir``; returns the PNG paths.

    An output fails when ``result`` (the case's CaseResult, if given) says so, else when any element lies outside
    the tolerance kcheck uses for it or was never written. Outputs whose shape differs from the reference's have no
    map. Tile lines come from the case's configuration (``tile_of``). ``options``: as the checked run had them
    (the interpreter's program order changes the result of an order-dependent kernel).
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    failing = None
    judged = {}  # the tolerance each output was judged with (its floor may come from the inputs' scale)
    if result is not None and result.comparisons:
        failing = {c.output for c in result.comparisons if not c.passed}
        judged = {c.output: c.tolerance for c in result.comparisons}
    n = reduction_length(tuple(spec.reduce), case.sizes)
    tile = tile_of(case)
    paths = []
    for name, actual, expected in case_tensors(spec, case, device, options=options):
        if actual.shape != expected.shape or actual.numel() == 0:
            continue
        tol = judged.get(name) or tolerance_for(case.precision, actual.dtype, n, rms(expected), rtol=spec.rtol,
                                                atol=spec.atol)
        if failing is not None:
            if name not in failing:
                continue
        elif not _fails(actual, expected, tol):
            continue
        stem = re.sub(r"[^A-Za-z0-9_.=-]+", "_", f"{case.id}_{name}").strip("_")[:180]
        title = f"{case.id}\n{name}"
        paths.append(error_map(actual, expected, out_dir / f"{stem}.png", title=title,
                               tile=_tile_for(tile, actual.dim()), tolerance=tol))
    return paths


def _fails(actual: torch.Tensor, expected: torch.Tensor, tol: Tolerance) -> bool:
    a = actual.to(torch.float64)
    if bool(mismatch_mask(a, expected, tol, expected_in(expected, actual.dtype)).any()):
        return True
    unw = _unwritten(actual)
    return bool(unw is not None and unw.any())


# --------------------------------------------------------------------------------------------------- the figures

def _unwritten(actual: torch.Tensor) -> torch.Tensor | None:
    if actual.dtype in AMBIGUOUS or actual.dtype == torch.bool or actual.is_complex():
        return None
    return unwritten_mask(actual)


def _grid_width(n: int, block: int | None) -> int:
    """Columns of the grid a 1-D output of ``n`` elements is drawn as: near-square; a power of two (blocks
    usually are) or, with a block size, a multiple or divisor of it, so that each block is a stripe of the grid."""
    side = max(1, math.ceil(math.sqrt(n)))
    if block and block > 0:
        if block <= side:
            return block * max(1, round(side / block))
        return next(d for d in range(min(side, block), 0, -1) if block % d == 0)
    return min(max(1, n), 1 << max(0, round(math.log2(side))))


def _as_grid(t: torch.Tensor, fill: float, block: int | None) -> tuple[torch.Tensor, str, int]:
    """``t`` as a 2-D tensor, a description of the reshape, and the grid width used for a 1-D input (0 if none)."""
    shape = tuple(t.shape)
    if t.dim() == 0:
        return t.reshape(1, 1), "a scalar", 0
    if t.dim() == 2:
        return t, "", 0
    if t.dim() > 2:
        rows = math.prod(shape[:-1])
        return t.reshape(rows, shape[-1]), f"shown as {rows} x {shape[-1]} (leading dims {list(shape[:-1])} " \
                                           f"flattened)", 0
    n = shape[0]
    w = _grid_width(n, block)
    rows = math.ceil(n / w)
    pad = rows * w - n
    flat = torch.cat([t, torch.full((pad,), fill, dtype=t.dtype)]) if pad else t
    text = f"1-D, {n} elements shown row-major as {rows} x {w} (element = row x {w} + column"
    text += f"; {pad} padding cells)" if pad else ")"
    return flat.reshape(rows, w), text, w


def _pool(x: torch.Tensor, fr: int, fc: int) -> torch.Tensor:
    if fr == 1 and fc == 1:
        return x
    out = torch.nn.functional.max_pool2d(x[None, None], (fr, fc), stride=(fr, fc), ceil_mode=True)
    return out[0, 0]


def _runs(flags: np.ndarray) -> list[tuple[int, int]]:
    """(start, length) of each run of True in ``flags``."""
    if not flags.any():
        return []
    f = np.concatenate([[False], flags, [False]]).astype(np.int8)
    d = np.diff(f)
    starts, ends = np.flatnonzero(d == 1), np.flatnonzero(d == -1)
    return [(int(s), int(e - s)) for s, e in zip(starts, ends, strict=True)]


def _widen(lo: float, hi: float, least: float, size: float) -> tuple[float, float]:
    """[lo, hi) widened to at least ``least`` around its middle, kept inside [0, size]."""
    if hi - lo >= least:
        return lo, hi
    lo = min(max(0.0, (lo + hi - least) / 2), max(0.0, size - least))
    return lo, min(size, lo + least)


def _outline_narrow(ax: Any, pcat: np.ndarray, k: int, fr: int, fc: int, min_r: float, min_c: float,
                    colour: str, rows: int, cols: int) -> None:
    """Outline, on the map, each run of columns (rows) of category ``k`` narrower on screen than a few pixels, over
    the rows (columns) it spans: one bad column of a thousand is a box, not a hairline."""
    from matplotlib.colors import to_rgb
    from matplotlib.patches import Rectangle

    for axis in (0, 1):  # 0: runs of columns, 1: runs of rows
        flags = (pcat == k).any(axis=axis)
        least, f_along, f_across = (min_c, fc, fr) if axis == 0 else (min_r, fr, fc)
        runs = [(s, n) for s, n in _runs(flags) if n * f_along < least]
        if not runs or len(runs) > _MAX_OUTLINES:
            continue
        for s, n in runs:
            part = pcat[:, s:s + n] if axis == 0 else pcat[s:s + n, :]
            across = np.flatnonzero((part == k).any(axis=1 - axis))
            a_lo, a_hi = across[0] * f_across, (across[-1] + 1) * f_across
            lo, hi = _widen(s * f_along, (s + n) * f_along, least, cols if axis == 0 else rows)
            if axis == 0:
                rect = Rectangle((lo, a_lo), hi - lo, a_hi - a_lo)
            else:
                rect = Rectangle((a_lo, lo), a_hi - a_lo, hi - lo)
            rect.set(facecolor=(*to_rgb(colour), 0.3), edgecolor=colour, linewidth=1.6)
            ax.add_patch(rect)


def _lines(size: int, step: int, px: float) -> list[int] | None:
    """Positions of tile boundaries inside an axis of ``size`` elements drawn over ``px`` pixels (None: too dense)."""
    if step <= 0 or step >= size:
        return []
    if step * px / size < _LINE_GAP_PX:
        return None
    return list(range(step, size, step))


def error_map(actual: torch.Tensor, expected: torch.Tensor, path: str | Path, *, title: str = "",
              tile: int | Sequence[int] | None = None, tolerance: Tolerance | None = None) -> Path:
    """Write a PNG map of |actual - expected| / rms(expected) to ``path`` and return the path.

    ``actual`` is the kernel's output in its own dtype (its poison bits mark unwritten elements), ``expected`` the
    reference (any float dtype, same shape). ``tile``: ``(BLOCK_M, BLOCK_N)`` (0 on an axis not tiled), or a 1-D
    block size (on a 2-D output: column chunks), drawn as thin lines. ``tolerance``: kcheck's tolerance for this
    output; elements within it are drawn grey, those outside it in colour (without it, all in colour).
    """
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.colors import LogNorm, to_rgba
        from matplotlib.figure import Figure
        from matplotlib.patches import Patch
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise EnvironmentProblem("error maps need matplotlib: pip install matplotlib") from exc

    path = Path(path)
    a = actual.detach().cpu()
    e = expected.detach().cpu().to(torch.float64)
    if tuple(a.shape) != tuple(e.shape):
        raise ValueError(f"shapes differ: actual {list(a.shape)}, expected {list(e.shape)}")
    shape, dtype = tuple(a.shape), str(a.dtype).removeprefix("torch.")
    if a.numel() == 0:
        raise ValueError(f"the output {list(shape)} has no elements: nothing to draw")
    if a.is_complex() or e.is_complex():
        raise ValueError("error maps of complex outputs are not supported")
    unw = _unwritten(a)
    a64 = a.to(torch.float64)
    e_r = expected_in(e, a.dtype)
    scale = rms(e)
    scale_txt = f"rms(expected) = {scale:.3g}" if scale > 0 else "absolute (rms(expected) = 0)"
    scale = scale if scale > 0 else 1.0

    nan_a, nan_e = torch.isnan(a64), torch.isnan(e_r)
    inf_any = torch.isinf(a64) | torch.isinf(e_r)
    nonfinite = (nan_a != nan_e) | (inf_any & ~nan_a & ~nan_e & (a64 != e_r))
    diff = a64 - e  # finite exactly where both are
    err = torch.where(torch.isfinite(diff), diff.abs() / scale, torch.zeros((), dtype=torch.float64))
    del diff
    cat = torch.full(shape, _OK, dtype=torch.uint8)
    if tolerance is not None:
        cat[mismatch_mask(a64, e, tolerance, e_r) & ~nonfinite] = _BAD
    else:
        cat[err > 0] = _BAD
    cat[nonfinite] = _NONFINITE
    if unw is not None:
        cat[unw.reshape(shape)] = _UNWRITTEN
    counts = {k: int((cat == k).sum()) for k in (_BAD, _NONFINITE, _UNWRITTEN)}
    numel = max(1, a.numel())

    t = _tile_for(tile, a.dim())
    block1d = t[0] if (t is not None and a.dim() == 1) else None
    err2, how, width1d = _as_grid(err, -1.0, block1d)
    cat2, _, _ = _as_grid(cat.to(torch.float32), float(_PAD), block1d)
    rows, cols = err2.shape

    # the map's size on screen, then the max-pooling that makes each pooled pixel at least one screen pixel
    ratio = rows / max(1, cols)
    if ratio <= 1:
        w_px, h_px = _MAP_PX, min(_MAP_PX, max(_MIN_PX, round(_MAP_PX * ratio)))
    else:
        h_px, w_px = _MAP_PX, min(_MAP_PX, max(_MIN_PX, round(_MAP_PX / ratio)))
    fr, fc = math.ceil(rows / h_px), math.ceil(cols / w_px)
    perr = _pool(err2, fr, fc).numpy()
    pcat = _pool(cat2, fr, fc).numpy().astype(np.uint8)
    pooled = f"; max-pooled in blocks of {fr} x {fc}" if (fr > 1 or fc > 1) else ""

    finite_pos = err[err > 0]
    vmax = float(finite_pos.max()) if finite_pos.numel() else 1.0
    vmin = float(finite_pos.min()) if finite_pos.numel() else vmax * 1e-3
    thr = tolerance.atol / scale if tolerance is not None and tolerance.atol > 0 else None
    if tolerance is None:  # nothing says what is wrong: the scale reaches an error as large as the values
        vmax = max(vmax, 1.0)
    if thr is not None:
        vmin = min(vmin, thr / 10)
        vmax = max(vmax, thr * 10)
    vmin = max(vmin, vmax * 1e-12)
    if vmax <= vmin:
        vmin, vmax = vmax / 10, vmax * 10
    norm = LogNorm(vmin=vmin, vmax=vmax, clip=True)
    clipped = np.clip(perr, vmin, vmax)

    # the legend: what each colour means, with counts
    pct = 100 / numel
    entries: list[tuple[str, str, str]] = []  # face colour, edge colour, label
    if tolerance is not None:
        entries.append(("#c8c8c8", "#9e9e9e", f"within tolerance ({numel - sum(counts.values())})"))
        entries.append((_OUTSIDE, _OUTSIDE, f"outside tolerance, finite: colour scale ({counts[_BAD]}, "
                                              f"{counts[_BAD] * pct:.2g}%)"))
    entries.append((_COLOURS[_NONFINITE], _COLOURS[_NONFINITE], f"NaN/Inf where the reference differs "
                                                                f"({counts[_NONFINITE]})"))
    if unw is not None:
        entries.append((_COLOURS[_UNWRITTEN], _COLOURS[_UNWRITTEN], f"never written: still poison "
                                                                    f"({counts[_UNWRITTEN]})"))
    else:
        entries.append(("none", "none", f"(unwritten elements cannot be told in {dtype})"))
    if how and "padding" in how:
        entries.append((_COLOURS[_PAD], "#9e9e9e", "padding (not an element)"))

    # layout, in pixels
    left, gap, marg, cb_gap, cb_w, right = 78, 8, 80, 52, 16, 86
    top, bottom = 92, 52
    fig_w = max(680, left + w_px + gap + marg + cb_gap + cb_w + right)
    ncol = max(1, min(3, len(entries), (fig_w - left) // 300))
    legend_h = 16 * math.ceil(len(entries) / ncol) + 12
    fig_h = top + marg + gap + h_px + bottom + legend_h
    fig = Figure(figsize=(fig_w / _DPI, fig_h / _DPI), dpi=_DPI)
    canvas = FigureCanvasAgg(fig)

    def box(x: float, y_top: float, w: float, h: float) -> tuple[float, float, float, float]:
        return (x / fig_w, 1 - (y_top + h) / fig_h, w / fig_w, h / fig_h)

    ax = fig.add_axes(box(left, top + marg + gap, w_px, h_px))
    ax_top = fig.add_axes(box(left, top, w_px, marg), sharex=ax)
    ax_right = fig.add_axes(box(left + w_px + gap, top + marg + gap, marg, h_px), sharey=ax)
    ax_cb = fig.add_axes(box(left + w_px + gap + marg + cb_gap, top + marg + gap, cb_w, h_px))

    extent = (0, perr.shape[1] * fc, perr.shape[0] * fr, 0)
    hot = "inferno"
    ok_layer = np.ma.masked_where(pcat != _OK, clipped)
    bad_layer = np.ma.masked_where(pcat != _BAD, clipped)
    special = np.zeros((*pcat.shape, 4), dtype=np.float32)
    for k, colour in _COLOURS.items():
        special[pcat == k] = to_rgba(colour)
    imkw: dict[str, Any] = {"extent": extent, "interpolation": "nearest", "aspect": "auto"}
    if tolerance is not None:
        from matplotlib.colors import LinearSegmentedColormap

        greys = LinearSegmentedColormap.from_list("kc_grey", ["#f2f2f2", "#9e9e9e"])
        ax.imshow(ok_layer, cmap=greys, norm=norm, **imkw)
    else:
        ax.imshow(ok_layer, cmap=hot, norm=norm, **imkw)
    mappable = ax.imshow(bad_layer, cmap=hot, norm=norm, **imkw)
    ax.imshow(special, **imkw)
    ax.set_xlim(0, cols)
    ax.set_ylim(rows, 0)
    ax.set_xlabel("column" if not width1d else f"column (element mod {width1d})")
    ax.set_ylabel("row" if a.dim() <= 2 and not width1d else ("row (leading dims flattened)" if a.dim() > 2 else
                                                              f"row (element // {width1d})"))

    # tile lines, in element coordinates of the drawn grid
    tile_txt = ""
    if t is not None:
        vl: list[int] | None = []
        hl: list[int] | None = []
        if a.dim() == 1 and block1d:
            if width1d % block1d == 0:
                vl = _lines(cols, block1d, w_px)
            elif block1d % width1d == 0:
                hl = _lines(rows, block1d // width1d, h_px)
            tile_txt = f"blocks of {block1d}"
        else:
            bm, bn = t
            hl = _lines(rows, bm, h_px) if bm else []
            vl = _lines(cols, bn, w_px) if bn else []
            tile_txt = "tiles " + " x ".join("-" if v == 0 else str(v) for v in (bm, bn))
        lk: dict[str, Any] = {"colors": "#1565c0", "linewidths": 0.8, "alpha": 0.8}
        if vl:
            ax.vlines(vl, 0, rows, **lk)
        if hl:
            ax.hlines(hl, 0, cols, **lk)
        if vl is None or hl is None:
            tile_txt += " (lines left out: too dense to draw)"
        elif not vl and not hl:
            tile_txt += " (one tile covers the output)"
        tile_txt = "; " + tile_txt + " in blue"
    elif a.dim() > 2 and shape[-2] > 1:
        hl = _lines(rows, shape[-2], h_px)
        if hl:
            ax.hlines(hl, 0, cols, colors="#1565c0", linewidths=1.0, alpha=0.9, linestyles="dashed")
            tile_txt = f"; dashed: a line every {shape[-2]} rows (one slice per index of dims {list(shape[:-2])})"

    # the worst error per column (top) and per row (right); columns or rows holding non-finite or unwritten
    # elements are shaded in their colour over the full height
    def profile(axis: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        e_max = np.where(perr >= 0, perr, 0).max(axis=axis)
        c_max = pcat.max(axis=axis)
        return np.clip(e_max, vmin, vmax), c_max, np.arange(e_max.shape[0]) * (fc if axis == 0 else fr)

    col_err, col_cat, col_x = profile(0)
    row_err, row_cat, row_y = profile(1)
    # the side plots: the worst error on a log scale in their inner 78%, and in the outer band a flag per run of
    # columns (rows) holding wrong elements, in the colour of the worst kind, never narrower than a few pixels
    # (one bad column among a thousand still shows)
    top_end = vmax * (vmax / vmin) ** (_BAND / (1 - _BAND))
    ax_top.set_yscale("log")
    ax_top.set_ylim(vmin, top_end)
    ax_right.set_xscale("log")
    ax_right.set_xlim(vmin, top_end)
    min_c, min_r = _MIN_SPAN_PX * cols / w_px, _MIN_SPAN_PX * rows / h_px
    flags = [(_NONFINITE, _COLOURS[_NONFINITE]), (_UNWRITTEN, _COLOURS[_UNWRITTEN])]
    if tolerance is not None:
        flags.insert(0, (_BAD, _OUTSIDE))
    band = {"lw": 0, "zorder": 3}
    for k, colour in flags:
        for s, n in _runs(col_cat == k):
            lo, hi = _widen(col_x[s], col_x[s] + n * fc, min_c, cols)
            ax_top.axvspan(lo, hi, ymin=1 - _BAND, ymax=1, color=colour, **band)
        for s, n in _runs(row_cat == k):
            lo, hi = _widen(row_y[s], row_y[s] + n * fr, min_r, rows)
            ax_right.axhspan(lo, hi, xmin=1 - _BAND, xmax=1, color=colour, **band)
        _outline_narrow(ax, pcat, k, fr, fc, min_r, min_c, _OUTSIDE if k == _BAD else colour, rows, cols)
    ax_top.axhline(vmax * 1.0001, color="#9e9e9e", lw=0.6)
    ax_right.axvline(vmax * 1.0001, color="#9e9e9e", lw=0.6)
    decades = [10.0 ** p for p in range(math.floor(math.log10(vmin)), math.ceil(math.log10(vmax)) + 1)]
    ticks = [t for t in decades if vmin <= t <= vmax] or [vmin, vmax]
    ticks = ticks[:: max(1, math.ceil(len(ticks) / 4))]
    ax_top.set_yticks(ticks, minor=False)
    ax_top.set_yticks([], minor=True)
    ax_right.set_xticks(ticks[:: max(1, math.ceil(len(ticks) / 2))], minor=False)
    ax_right.set_xticks([], minor=True)
    flagged = np.argwhere(pcat >= (_BAD if tolerance is not None else _NONFINITE))
    small = min(w_px / pcat.shape[1], h_px / pcat.shape[0]) < 8  # an element is a few pixels on screen
    if small and 0 < len(flagged) <= _MAX_RINGS:  # a few wrong elements: ringed, as a pixel each would be lost
        ax.scatter((flagged[:, 1] + 0.5) * fc, (flagged[:, 0] + 0.5) * fr, s=90, facecolors="none",
                   edgecolors="#d50000", linewidths=1.2)
    ax_top.stairs(col_err, np.append(col_x, col_x[-1] + fc), color="#b71c1c", lw=1.0, baseline=vmin, fill=True,
                  alpha=0.85)
    ax_right.stairs(row_err, np.append(row_y, row_y[-1] + fr), color="#b71c1c", lw=1.0, baseline=vmin, fill=True,
                    alpha=0.85, orientation="horizontal")
    if thr is not None:
        ax_top.axhline(thr, color="#424242", lw=0.8, ls="--")
        ax_right.axvline(thr, color="#424242", lw=0.8, ls="--")
    ax_top.set_ylabel("worst\nper col", fontsize=8)
    ax_right.set_xlabel("worst per row", fontsize=8)
    ax_top.tick_params(labelbottom=False, labelsize=7)
    ax_right.tick_params(labelleft=False, labelsize=7)
    for side in (ax_top, ax_right):
        side.set_facecolor("#fafafa")
    ax.set_xlim(0, cols)
    ax.set_ylim(rows, 0)

    cb = fig.colorbar(mappable, cax=ax_cb)
    cb.set_label(f"|actual - expected| / {scale_txt}", fontsize=8)
    cb.ax.tick_params(labelsize=7)
    if thr is not None:
        cb.ax.axhline(thr, color="#00e5ff", lw=1.5)
        cb.ax.text(-0.15, thr, "atol", transform=cb.ax.get_yaxis_transform(), va="center", ha="right",
                   fontsize=7, color="#006064", clip_on=False)

    head = title.strip() or "error map"
    info = f"{list(shape)} {dtype}"
    if how:
        info += f"; {how}"
    info += pooled + tile_txt
    fig.text(left / fig_w, 1 - 10 / fig_h, head, ha="left", va="top", fontsize=9.5, weight="bold")
    fig.text(left / fig_w, 1 - 50 / fig_h, info, ha="left", va="top", fontsize=8, color="#333333", wrap=True)

    fig.legend(handles=[Patch(facecolor=fc_, edgecolor=ec_, label=lab) for fc_, ec_, lab in entries],
               loc="lower left", bbox_to_anchor=(left / fig_w, 4 / fig_h), ncol=ncol, fontsize=7.5, frameon=False,
               handlelength=1.2, columnspacing=1.2)
    ax.tick_params(labelsize=7)

    path.parent.mkdir(parents=True, exist_ok=True)
    canvas.draw()
    _write_png(np.asarray(canvas.buffer_rgba()), path)
    return path


def _write_png(rgba: np.ndarray, path: Path) -> None:
    """Write the drawing as a 256-colour palette PNG when Pillow is there (a third of the size, same look)."""
    try:
        from PIL import Image
    except ImportError:  # pragma: no cover - Pillow comes with matplotlib
        from matplotlib.image import imsave

        imsave(path, rgba, format="png")
        return
    img = Image.fromarray(np.ascontiguousarray(rgba[..., :3]))
    # a median-cut palette drops the colours of a few pixels (the legend's, a single bad column): keep them exact
    base = img.quantize(colors=256 - len(_KEEP), method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    colours = (base.getpalette() or [])[: 3 * (256 - len(_KEEP))]
    for c in _KEEP:
        colours += [int(c[i:i + 2], 16) for i in (1, 3, 5)]
    pal = Image.new("P", (1, 1))
    pal.putpalette(colours + [0] * (768 - len(colours)))
    img.quantize(palette=pal, dither=Image.Dither.NONE).save(path, format="PNG")
