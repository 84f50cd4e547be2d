"""The comparison of a large GPU output in one pass: a Triton kernel that computes every figure of the chunked
comparison (``_compare._Accumulator.add``) at once.

The chunked comparison makes about sixty elementwise passes over each 2**24-element chunk (float64 temporaries for
the NaN, infinity, difference, relative and ulp terms, each a kernel of its own); on a 2**31-element output that is
about 0.4 s of GPU time per output, most of a past-2**31 case's own work. Here each program reads its slice of the
output, the reference, the poison mask and the baseline once, writes its slice of the mismatch mask, and leaves one
row of partial figures (counts, sums, maxima and the first index of each maximum); torch folds the rows.

The figures are the chunked comparison's, by the same definitions: the reference rounded to the output dtype the
way torch rounds it (float64 -> float32 -> the output dtype), the first index of the largest difference, the ulp
spacing from the reference's exponent. Sums of squares add in another order (the last bits of a norm may differ).

``fused_figures`` declines (returns None) what it does not cover, and the chunked route runs: an output not on a
CUDA device, not floating point, not contiguous, small (one chunk: a compile would cost more than it saves), a
Triton that is missing or in interpreter mode, or a kernel that fails to compile or launch. ``force=True`` takes any
size and device, for the tests (on a CPU under Triton's interpreter).
"""

from __future__ import annotations

import contextlib
import math
import os
from typing import Any

import torch

from ._tolerance import Tolerance

#: Elements per program: TILES tiles of BLOCK lanes (a 2**31-element output leaves 2**17 rows of partial figures).
_BLOCK = 1024
_TILES = 16
#: Columns of a program's row of partial figures.
_COLUMNS = 16
#: The rounding of the reference to the output dtype: float64 -> float32 -> the dtype, as torch converts.
_ROUND = {torch.float64: 0, torch.float32: 1, torch.float16: 2, torch.bfloat16: 3}

_kernel: Any = None


def _build() -> Any:
    import triton
    import triton.language as tl

    @triton.jit
    def compare_kernel(a_ptr, e_ptr, u_ptr, b_ptr, bad_ptr, part_ptr, par_ptr, n,
                       HAS_U: tl.constexpr, HAS_B: tl.constexpr, ROUND: tl.constexpr, MANT: tl.constexpr,
                       BLOCK: tl.constexpr, TILES: tl.constexpr):
        pid = tl.program_id(0).to(tl.int64)
        atol = tl.load(par_ptr)
        rtol = tl.load(par_ptr + 1)
        tiny = tl.load(par_ptr + 2)
        rel_floor = tl.load(par_ptr + 3)  # 1e-300, which a float32 literal cannot hold
        inf = tl.load(par_ptr + 4)
        lanes = tl.arange(0, BLOCK)
        zero = tl.zeros([BLOCK], tl.float64)
        izero = tl.zeros([BLOCK], tl.int32)
        c_bad, c_nan, c_inf, c_u, c_bb, c_both = izero, izero, izero, izero, izero, izero
        sq_d, sq_e, sq_b = zero, zero, zero
        m_ulp, k_err, b_err = zero, zero, zero
        best_d, best_r = zero - 1.0, zero - 1.0
        at_d = tl.zeros([BLOCK], tl.int64)
        at_r = tl.zeros([BLOCK], tl.int64)
        for t in range(TILES):
            offs = (pid * TILES + t) * BLOCK + lanes
            m = offs < n
            a = tl.load(a_ptr + offs, mask=m, other=0).to(tl.float64)
            e = tl.load(e_ptr + offs, mask=m, other=0).to(tl.float64)
            if ROUND == 1:
                e_r = e.to(tl.float32).to(tl.float64)
            elif ROUND == 2:
                e_r = e.to(tl.float32).to(tl.float16).to(tl.float64)
            elif ROUND == 3:
                e_r = e.to(tl.float32).to(tl.bfloat16).to(tl.float64)
            else:
                e_r = e
            nan_a = a != a
            nan_e = e_r != e_r
            inf_a = tl.abs(a) == inf
            inf_er = tl.abs(e_r) == inf
            inf_any = inf_a | inf_er
            neither = (nan_a | nan_e) == 0
            d = tl.abs(a - e)
            abs_e = tl.abs(e)
            bad = neither & (inf_any == 0) & (d > atol + rtol * abs_e)
            nan_diff = nan_a != nan_e
            inf_bad = inf_any & neither & (a != e_r)
            bad = bad | nan_diff | inf_bad
            if HAS_U:
                u = tl.load(u_ptr + offs, mask=m, other=0) != 0
                c_u += (u & m).to(tl.int32)
                bad = bad | u
                nan_diff = nan_diff & (u == 0)
            bad = bad & m
            tl.store(bad_ptr + offs, bad.to(tl.uint8), mask=m)
            c_bad += bad.to(tl.int32)
            c_nan += (nan_diff & m).to(tl.int32)
            c_inf += (inf_bad & m).to(tl.int32)
            finite = ((nan_a | inf_a | (e != e) | (tl.abs(e) == inf)) == 0) & m
            diff = tl.where(finite, d, 0.0)
            rel = tl.where(abs_e > 0, diff / tl.maximum(abs_e, rel_floor), tl.where(diff > 0, inf, 0.0))
            cand = tl.where(m, diff, -1.0)
            up = cand > best_d
            best_d = tl.where(up, cand, best_d)
            at_d = tl.where(up, offs, at_d)
            cand = tl.where(m, rel, -1.0)
            up = cand > best_r
            best_r = tl.where(up, cand, best_r)
            at_r = tl.where(up, offs, at_r)
            e_f = tl.where(finite, e, 0.0)
            sq_d += diff * diff
            sq_e += e_f * e_f
            # the ulp spacing at e_f: 2**(exponent - MANT), from the bits of max(|e_f|, tiny) (a normal float64)
            mag = tl.maximum(tl.abs(e_f), tiny)
            k = ((mag.to(tl.int64, bitcast=True) >> 52) & 0x7FF) - 1023 - MANT
            sub = tl.full([BLOCK], 1, tl.int64) << tl.minimum(tl.maximum(k + 1074, 0), 62)  # below 2**-1022
            bits = tl.where(k >= -1022, (k + 1023) << 52, sub)
            m_ulp = tl.maximum(m_ulp, diff / bits.to(tl.float64, bitcast=True))
            if HAS_B:
                bf = tl.load(b_ptr + offs, mask=m, other=0).to(tl.float64)
                nan_b = bf != bf
                inf_b = tl.abs(bf) == inf
                d_b = tl.abs(bf - e)
                bb = ((nan_b | nan_e) == 0) & ((inf_b | inf_er) == 0) & (d_b > atol + rtol * abs_e)
                bb = bb | (nan_b != nan_e)
                bb = bb | ((inf_b | inf_er) & (nan_b == 0) & (nan_e == 0) & (bf != e_r))
                both = finite & ((nan_b | inf_b) == 0)
                c_bb += (bb & m).to(tl.int32)
                c_both += both.to(tl.int32)
                k_err = tl.maximum(k_err, tl.where(both, diff, 0.0))
                b_err = tl.maximum(b_err, tl.where(both, d_b, 0.0))
                eb = tl.where(both, e, 0.0)
                sq_b += eb * eb
        row = part_ptr + pid * 16
        tl.store(row + 0, tl.sum(c_bad, 0).to(tl.float64))
        tl.store(row + 1, tl.sum(c_nan, 0).to(tl.float64))
        tl.store(row + 2, tl.sum(c_inf, 0).to(tl.float64))
        tl.store(row + 3, tl.sum(c_u, 0).to(tl.float64))
        top = tl.max(best_d, 0)
        tl.store(row + 4, top)
        tl.store(row + 5, tl.min(tl.where(best_d == top, at_d, n), 0).to(tl.float64))
        top = tl.max(best_r, 0)
        tl.store(row + 6, top)
        tl.store(row + 7, tl.min(tl.where(best_r == top, at_r, n), 0).to(tl.float64))
        tl.store(row + 8, tl.sum(sq_d, 0))
        tl.store(row + 9, tl.sum(sq_e, 0))
        tl.store(row + 10, tl.max(m_ulp, 0))
        tl.store(row + 11, tl.sum(c_bb, 0).to(tl.float64))
        tl.store(row + 12, tl.max(k_err, 0))
        tl.store(row + 13, tl.max(b_err, 0))
        tl.store(row + 14, tl.sum(sq_b, 0))
        tl.store(row + 15, tl.sum(c_both, 0).to(tl.float64))

    return compare_kernel


def _first_max(value: torch.Tensor, at: torch.Tensor) -> list[torch.Tensor]:
    """The largest of the programs' maxima and its first index (programs hold ascending index ranges)."""
    top = value.max()
    return [torch.where(value == top, at, math.inf).min(), top]


def fused_figures(a: torch.Tensor, e: torch.Tensor, tol: Tolerance, unwritten: torch.Tensor | None,
                  b: torch.Tensor | None, bad: torch.Tensor, *, min_elements: int,
                  force: bool = False) -> list[float] | None:
    """Every figure of the comparison of the flat output ``a`` with its flat reference ``e``, in the order of the
    chunked route's figures (``_Accumulator.add``), with the mismatch mask written into ``bad`` (flat, bool); None
    where this route declines (see the module's docstring)."""
    global _kernel
    if a.dtype not in _ROUND or not (e.dtype.is_floating_point and (b is None or b.dtype.is_floating_point)):
        return None
    tensors = [t for t in (a, e, unwritten, b, bad) if t is not None]
    if not all(t.is_contiguous() and t.device == a.device for t in tensors):
        return None
    if not force and (a.device.type != "cuda" or a.numel() < min_elements
                      or os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")):
        return None
    try:
        if _kernel is None:
            _kernel = _build()
    except ImportError:
        return None
    n = a.numel()
    programs = -(-n // (_BLOCK * _TILES))
    part = torch.empty((programs, _COLUMNS), dtype=torch.float64, device=a.device)
    info = torch.finfo(a.dtype)
    par = torch.tensor([tol.atol, tol.rtol, info.tiny, 1e-300, math.inf], dtype=torch.float64, device=a.device)
    mant = round(-math.log2(info.eps))
    try:
        with torch.cuda.device(a.device) if a.device.type == "cuda" else contextlib.nullcontext():
            _kernel[(programs,)](a, e, a if unwritten is None else unwritten.view(torch.uint8),
                                 a if b is None else b, bad.view(torch.uint8), part, par, n,
                                 HAS_U=unwritten is not None, HAS_B=b is not None, ROUND=_ROUND[a.dtype], MANT=mant,
                                 BLOCK=_BLOCK, TILES=_TILES)
    except torch.cuda.OutOfMemoryError:
        raise  # the device's memory, as for the chunked route: the caller says so
    except Exception:  # a Triton that cannot compile or launch it here (an old GPU, a broken install): the
        return None  # chunked route, which writes every element of the mask again
    col = part.unbind(1)
    figures: list[torch.Tensor] = []
    if unwritten is not None:
        figures.append(col[3].sum())
    figures += [col[0].sum(), col[1].sum(), col[2].sum()]
    figures += [*_first_max(col[4], col[5]), *_first_max(col[6], col[7]), col[8].sum(), col[9].sum(), col[10].max()]
    if b is not None:
        figures += [col[11].sum(), col[12].max(), col[13].max(), col[14].sum(), col[15].sum()]
    return [float(v) for v in torch.stack(figures).tolist()]  # one transfer
