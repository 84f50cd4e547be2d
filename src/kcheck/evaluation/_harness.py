"""The checks themselves, run where the candidate runs (a child process when evaluated from the CLI).

This module captures the clocks and synchronization functions when it is imported, before any candidate is, and
times with those captured objects: a candidate that replaces ``torch.cuda.synchronize`` or ``time.perf_counter``
neither fools the timing nor goes unnoticed (the identities are compared after the import and after each call).
"""

from __future__ import annotations

import math
import statistics
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from .._dtypes import PRECISIONS
from .._errors import SpecError
from ..compare import Comparison, compare, noop_guard, rms, rms_of_inputs, tolerance_for
from ..run import PoisonAllocations, poison_, unwritten_mask
from ._floor import count_flops, device_peak, floor_seconds
from ._model import Check, CheckKind, Evaluation, Outcome, Timing
from ._problem import (
    Candidate,
    Problem,
    candidate_from_module,
    flat_outputs,
    load_module,
    problem_from_module,
    tensors_of,
)

_PERF = time.perf_counter
_SLEEP = time.sleep

#: Functions a benchmark's timing or comparison relies on; a candidate that replaces one is caught.
WATCHED = ("time.perf_counter", "time.perf_counter_ns", "time.time", "time.monotonic", "time.sleep",
           "torch.cuda.synchronize", "torch.cuda.Event", "torch.cuda.Event.record", "torch.cuda.Event.elapsed_time",
           "torch.cuda.Event.synchronize", "torch.cuda.Stream.synchronize", "torch.cuda.current_stream",
           "torch.allclose", "torch.equal", "torch.testing.assert_close", "torch.Tensor.clone")

#: Global numerics switches: a candidate that turns one on lowers the reference's precision as well.
NUMERICS = ("torch.backends.cuda.matmul.allow_tf32", "torch.backends.cudnn.allow_tf32",
            "torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction",
            "torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction")


def _resolve(path: str) -> Any:
    parts = path.split(".")
    obj: Any = sys.modules.get(parts[0])
    for p in parts[1:]:
        obj = getattr(obj, p, None)
    return obj


def _numerics() -> dict[str, Any]:
    out = {p: _resolve(p) for p in NUMERICS}
    out["torch.get_float32_matmul_precision()"] = torch.get_float32_matmul_precision()
    return out


ORIGINAL: dict[str, Any] = {p: _resolve(p) for p in WATCHED}
_SYNC = ORIGINAL["torch.cuda.synchronize"]
_EVENT = ORIGINAL["torch.cuda.Event"]
_RECORD = ORIGINAL["torch.cuda.Event.record"]
_ELAPSED = ORIGINAL["torch.cuda.Event.elapsed_time"]
_EVENT_SYNC = ORIGINAL["torch.cuda.Event.synchronize"]


def replaced() -> list[str]:
    return [p for p in WATCHED if ORIGINAL[p] is not None and _resolve(p) is not ORIGINAL[p]]


def restore() -> None:
    """Put the captured functions back (an evaluation in the caller's process must not leave them patched)."""
    for p in replaced():
        parent, name = p.rsplit(".", 1)
        try:
            setattr(_resolve(parent), name, ORIGINAL[p])
        except (AttributeError, TypeError):
            pass


@dataclass
class Options:
    seeds: int = 3
    trials: int = 2
    timing: bool = True
    precision: str | None = None  # the problem's precision; default: the reference output's dtype
    reduce: int | None = None  # reduction length for the tolerance; default: the longest last dimension of inputs
    poison: bool = True  # poison the allocator's free blocks before each candidate call (GPU)
    settle: float = 0.05  # seconds waited, after a whole-device sync, before outputs are compared again
    thread_wait: float = 5.0  # seconds a thread the call left running is given to finish
    variants: int = 4


@dataclass
class _Trial:
    label: str
    outputs: list[Any]
    snapshots: list[torch.Tensor | None]


@dataclass
class _Recorder:
    fails: dict[CheckKind, list[tuple[str, dict[str, Any]]]] = field(default_factory=dict)
    warns: dict[CheckKind, list[tuple[str, dict[str, Any]]]] = field(default_factory=dict)
    oks: dict[CheckKind, list[str]] = field(default_factory=dict)
    skips: dict[CheckKind, str] = field(default_factory=dict)

    def fail(self, kind: CheckKind, summary: str, **evidence: Any) -> None:
        self.fails.setdefault(kind, []).append((summary, evidence))

    def warn(self, kind: CheckKind, summary: str, **evidence: Any) -> None:
        self.warns.setdefault(kind, []).append((summary, evidence))

    def ok(self, kind: CheckKind, note: str = "") -> None:
        self.oks.setdefault(kind, []).append(note)

    def skip(self, kind: CheckKind, why: str) -> None:
        self.skips.setdefault(kind, why)

    def checks(self) -> list[Check]:
        out = []
        for kind in CheckKind:
            if kind in self.fails:
                found = self.fails[kind]
                more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
                out.append(Check(kind, Outcome.FAIL, found[0][0] + more, [e for _, e in found[:5]]))
            elif kind in self.warns:
                found = self.warns[kind]
                out.append(Check(kind, Outcome.WARN, found[0][0], [e for _, e in found[:5]]))
            elif kind in self.oks:
                notes = [n for n in self.oks[kind] if n]
                out.append(Check(kind, Outcome.PASS, notes[-1] if notes else f"{len(self.oks[kind])} checked"))
            elif kind in self.skips:
                out.append(Check(kind, Outcome.SKIP, self.skips[kind]))
        return out


def _sync(device: str) -> None:
    if device == "cuda":
        _SYNC()


def _same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.is_floating_point() or a.is_complex():
        return bool(((a == b) | (torch.isnan(a) & torch.isnan(b))).all())
    return bool(torch.equal(a, b))


def _span(t: torch.Tensor) -> tuple[int, int] | None:
    try:
        st = t.untyped_storage()
        return (st.data_ptr(), st.data_ptr() + st.nbytes()) if st.nbytes() else None
    except Exception:
        return None


def _overlaps(a: torch.Tensor, b: torch.Tensor) -> bool:
    sa, sb = _span(a), _span(b)
    return sa is not None and sb is not None and sa[0] < sb[1] and sb[0] < sa[1]


def _plain(t: torch.Tensor) -> torch.Tensor:
    return t if type(t) is torch.Tensor else t.as_subclass(torch.Tensor)


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return ""
    f = frames[-1]
    return f"{Path(f.filename).name}:{f.lineno} in {f.name}"


def _poison_free_blocks(dtype: torch.dtype, limit: int = 16 << 30) -> int:
    """Fill every free block of the CUDA caching allocator with the poison of ``dtype``, then free them again: a
    candidate that allocates and reads memory it never wrote (the reference's freed output) reads poison. Returns
    the bytes poisoned."""
    held: list[torch.Tensor] = []
    total = 0
    itemsize = torch.empty((), dtype=dtype).element_size()
    dev = torch.cuda.current_device()
    for seg in torch.cuda.memory_snapshot():
        if seg.get("device", dev) != dev:
            continue
        for blk in seg.get("blocks", []):
            size = int(blk.get("size", 0))
            if blk.get("state") != "inactive" or size < itemsize or total + size > limit:
                continue
            held.append(poison_(torch.empty(size // itemsize, dtype=dtype, device="cuda")))
            total += size
    del held
    return total


class Evaluator:
    def __init__(self, problem: Problem, candidate: Candidate, options: Options, rec: _Recorder) -> None:
        self.p, self.c, self.o, self.rec = problem, candidate, options, rec
        self.device = problem.device
        self.kept: list[_Trial] = []
        self.trials = 0
        self.numerics = _numerics()
        self.precision: str | None = options.precision

    # -- one input set ------------------------------------------------------------------------------------------
    def _reference(self, args: list[Any]) -> tuple[list[Any], list[torch.Tensor], list[int], bool]:
        """(baseline outputs in float64, expected outputs in float64, inputs the reference itself changes, whether
        the reference's output shares memory with its inputs). Raises what the reference raises."""
        ref_args = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
        base = flat_outputs(self.p.reference(*ref_args))
        _sync(self.device)
        mutated = [i for i, (a, r) in enumerate(zip(args, ref_args, strict=True))
                   if isinstance(a, torch.Tensor) and not _same_bits(a, r)]
        aliases = any(isinstance(b, torch.Tensor) and _overlaps(b, r) for b in base for r in tensors_of(ref_args))
        expected: list[torch.Tensor] | None = None
        if self.p.reference64 is not None:
            try:
                expected = [e.detach().to(torch.float64) if isinstance(e, torch.Tensor) else e
                            for e in flat_outputs(self.p.reference64(*args))]
            except Exception as exc:
                self.rec.warn(CheckKind.CORRECTNESS, "the reference does not run in float64; outputs are compared "
                              "with the reference in its own precision", error=f"{type(exc).__name__}: {exc}")
                self.p.reference64 = None
        dtypes = [b.dtype if isinstance(b, torch.Tensor) else None for b in base]
        base64 = [b.detach().to(torch.float64) if isinstance(b, torch.Tensor) else b for b in base]
        if expected is None:
            expected = base64
        self.out_dtypes = dtypes
        del base, ref_args
        return base64, expected, mutated, aliases

    def _precision_of(self, dtype: torch.dtype | None) -> str:
        if self.precision is not None:
            return self.precision
        names = {torch.float32: "fp32", torch.float16: "fp16", torch.bfloat16: "bf16", torch.float64: "fp64"}
        return names.get(dtype, "fp32") if dtype is not None else "fp32"

    def _reduce(self, args: list[Any]) -> int:
        if self.o.reduce:
            return self.o.reduce
        lasts = [a.shape[-1] for a in args if isinstance(a, torch.Tensor) and a.dim() > 0]
        return max(lasts, default=1)

    def run(self, args: list[Any], label: str, variant: bool = False) -> bool | None:
        """Check the candidate on one input set. False: it failed; None: the reference refused a variant."""
        try:
            baselines, expected, ref_mutated, ref_aliases = self._reference(args)
        except Exception as exc:
            if variant:
                return None
            raise SpecError("reference", self.p.name, f"the reference raised {type(exc).__name__}: {exc} on its own "
                            "inputs; fix the reference problem") from None
        self.trials += 1
        before = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
        _sync(self.device)
        if self.o.poison and self.device == "cuda":
            dtype = next((d for d in self.out_dtypes if d is not None and d.is_floating_point), torch.float32)
            _poison_free_blocks(dtype)
        threads = set(threading.enumerate())
        watch = _ThreadWatch()
        try:
            with PoisonAllocations(), watch:
                out = self.c.call(*args)
        except Exception as exc:
            self.rec.fail(CheckKind.RUNS, f"raised {type(exc).__name__}: {exc}", input=label, where=_where(exc))
            return False
        except SystemExit as exc:
            self.rec.fail(CheckKind.RUNS, f"called sys.exit({exc.code!r})", input=label)
            return False
        outs = flat_outputs(out)
        snaps: list[torch.Tensor | None] = []
        try:
            for o in outs:  # what a consumer on the current stream sees as the call returns: no synchronization first
                snaps.append(_plain(o.detach().clone()) if isinstance(o, torch.Tensor) else None)
        except Exception as exc:
            self.rec.fail(CheckKind.RUNS, f"reading its output raised {type(exc).__name__}: {exc}", input=label,
                          where=_where(exc), type=[type(o).__qualname__ for o in outs])
            return False
        left = [t for t in threading.enumerate() if t not in threads and t.is_alive()]
        self._settle(left, label, watch)
        self._check_replaced(f"during the call ({label})")
        self._async(outs, snaps, label)
        ok = self._outputs(outs, snaps, args, before, baselines, expected, ref_mutated, ref_aliases, label, variant)
        self.kept.append(_Trial(label, outs, snaps))
        return ok

    def _settle(self, left: list[threading.Thread], label: str, watch: _ThreadWatch) -> None:
        """Threads the call started: one that ended after the call returned did work outside its time. A thread
        started through ``Thread.start`` is timed to its end (``_ThreadWatch``), so one that ends between the
        return and this check, which a loaded machine makes likely, is still seen; others count when alive at
        the return."""
        ended = {t: box for t, box in watch.started}  # each box gets "end" when its thread's run returns
        candidates = list(ended) + [t for t in left if t not in ended]
        deadline = _PERF() + self.o.thread_wait
        for t in candidates:
            t.join(max(0.0, deadline - _PERF()))
        _sync(self.device)
        _SLEEP(self.o.settle)
        _sync(self.device)

        def late(t: threading.Thread) -> bool:  # an unwatched thread was alive when the call returned
            return t not in ended or ended[t].get("end", -math.inf) > watch.returned

        finished = [t.name for t in candidates if not t.is_alive() and not _library_thread(t) and late(t)]
        running = [t.name for t in candidates if t.is_alive() or _library_thread(t)]
        if finished:
            self.rec.fail(CheckKind.THREADS, f"{len(finished)} thread(s) the call started were still running when it "
                          "returned, and finished later: work done after the call returned is not in its time",
                          input=label, threads=finished)
        elif running:
            self.rec.warn(CheckKind.THREADS, f"thread(s) the call started are still alive {self.o.thread_wait:g} s "
                          "after it returned (a pool?)", input=label, threads=running)
        else:
            self.rec.ok(CheckKind.THREADS, "no thread the call started outlived it")

    def _async(self, outs: list[Any], snaps: list[torch.Tensor | None], label: str) -> None:
        for i, (o, s) in enumerate(zip(outs, snaps, strict=True)):
            if s is None:
                continue
            now = _plain(o.detach().clone())
            if not _same_bits(now, s):
                diff = int((~((now == s) | (torch.isnan(now) & torch.isnan(s)))).sum()) if now.shape == s.shape else -1
                self.rec.fail(CheckKind.ASYNC_WORK, f"output {i} changed after the call returned (read as it returned,"
                              " then after a whole-device synchronization): its work was still running on another "
                              "stream or thread", input=label, elements_changed=diff, of=now.numel())
                return
        self.rec.ok(CheckKind.ASYNC_WORK, "outputs unchanged after a whole-device synchronization")

    def _check_replaced(self, when: str) -> None:
        changed = replaced()
        if changed:
            self.rec.fail(CheckKind.TIMER, f"replaced {', '.join(changed)} ({when}): timing or comparisons through "
                          "them cannot be trusted", replaced=changed, when=when)
        else:
            self.rec.ok(CheckKind.TIMER, "clocks and synchronization functions are the ones captured before import")
        now = _numerics()
        moved = {k: f"{self.numerics[k]} -> {v}" for k, v in now.items() if v != self.numerics[k]}
        if moved:
            self.rec.fail(CheckKind.PRECISION, "the candidate changed torch's global numerics settings (they lower "
                          "the reference's precision as well): " + ", ".join(f"{k}: {v}" for k, v in moved.items()),
                          when=when, **moved)
            self.numerics = now

    def _outputs(self, outs: list[Any], snaps: list[torch.Tensor | None], args: list[Any], before: list[Any],
                 baselines: list[Any], expected: list[Any], ref_mutated: list[int], ref_aliases: bool, label: str,
                 variant: bool) -> bool:
        ok = True
        rec = self.rec
        if len(outs) != len(expected):
            rec.fail(CheckKind.DTYPE, f"returned {len(outs)} output(s), the reference {len(expected)}", input=label)
            return False
        # inputs
        changed = [i for i, (a, b) in enumerate(zip(args, before, strict=True))
                   if isinstance(a, torch.Tensor) and i not in ref_mutated and not _same_bits(_plain(a), _plain(b))]
        if changed:
            rec.fail(CheckKind.INPUT_MUTATION, f"input(s) {changed} changed during the call (the reference leaves "
                     "them as they were)", input=label)
            ok = False
        else:
            rec.ok(CheckKind.INPUT_MUTATION, "inputs unchanged by every call")
        for i, (o, s, exp) in enumerate(zip(outs, snaps, expected, strict=True)):
            name = f"output {i}"
            if not isinstance(o, torch.Tensor) or s is None:
                rec.fail(CheckKind.DTYPE, f"{name} is a {type(o).__name__}, not a tensor", input=label)
                ok = False
                continue
            if type(o) is not torch.Tensor:
                own = type(o).__torch_function__ is not torch.Tensor.__torch_function__
                rec.fail(CheckKind.LAZY_OUTPUT, f"{name} is a {type(o).__qualname__}, a subclass of torch.Tensor"
                         + (" with its own __torch_function__" if own else "")
                         + ": its values can be computed when read, after the timer stopped", input=label,
                         type=f"{type(o).__module__}.{type(o).__qualname__}")
                ok = False
            else:
                rec.ok(CheckKind.LAZY_OUTPUT, "every output is a plain torch.Tensor")
            ok &= self._alias(name, o, args, ref_aliases, label)
            ok &= self._compare(name, s, exp, baselines[i], self.out_dtypes[i], args, label, variant)
        return ok

    def _alias(self, name: str, o: torch.Tensor, args: list[Any], ref_aliases: bool, label: str) -> bool:
        found = []
        if not ref_aliases:
            found += [f"input {j}" for j, a in enumerate(args) if isinstance(a, torch.Tensor) and _overlaps(o, a)]
        found += ["a parameter or buffer of the candidate" for p in self.c.parameters if _overlaps(o, p)][:1]
        for t in self.kept:
            if any(isinstance(e, torch.Tensor) and _overlaps(o, e) for e in t.outputs):
                found.append(f"the output of an earlier call ({t.label})")
                break
        if found:
            self.rec.fail(CheckKind.ALIASING, f"{name} shares memory with {found[0]}: a cached or reused tensor, not "
                          "a result computed by this call", input=label, shares_with=found)
            return False
        self.rec.ok(CheckKind.ALIASING, "no output shares memory with an input, a parameter or an earlier output")
        return True

    def _compare(self, name: str, out: torch.Tensor, exp: Any, base: Any, ref_dtype: torch.dtype | None,
                 args: list[Any], label: str, variant: bool) -> bool:
        rec, ok = self.rec, True
        if not isinstance(exp, torch.Tensor):
            rec.fail(CheckKind.DTYPE, f"the reference's {name} is not a tensor", input=label)
            return False
        if ref_dtype is not None and out.dtype != ref_dtype:
            rec.fail(CheckKind.DTYPE, f"{name} is {out.dtype}, the reference's {ref_dtype}", input=label)
            ok = False
        elif out.device.type != torch.device(self.device).type:
            rec.fail(CheckKind.DTYPE, f"{name} is on {out.device}, the reference's on {self.device}", input=label)
            ok = False
        else:
            rec.ok(CheckKind.DTYPE, "dtypes, shapes and devices as the reference's")
        prec = self._precision_of(ref_dtype)
        n = self._reduce(args)
        exp = exp.to(out.device)
        input_scale = rms_of_inputs(args)
        scale = rms(exp)
        if not out.dtype.is_floating_point:
            tol = tolerance_for(prec, out.dtype, n, scale)
            cmp = compare(name, out, exp, tol)
        else:
            tol = tolerance_for(prec, out.dtype, n, scale, input_scale=input_scale)
            mask = unwritten_mask(out)
            b = base.to(out.device) if isinstance(base, torch.Tensor) and base.shape == out.shape else None
            cmp = compare(name, out, exp, tol, unwritten=mask, baseline=b, baseline_required=prec in ("bf16", "fp16"),
                          accumulate=math.sqrt(n) * PRECISIONS[prec].accumulate_eps if prec in PRECISIONS else 0.0,
                          input_scale=input_scale if scale == 0 else 0.0)
        evidence = _evidence(cmp, label)
        if cmp.unwritten and not variant:
            rec.fail(CheckKind.STALE_MEMORY, f"{name}: {cmp.unwritten} of {cmp.numel} elements hold the poison written "
                     "into memory before the call: the candidate returned memory it never wrote (stale results)",
                     **evidence)
            ok = False
        elif not variant:
            rec.ok(CheckKind.STALE_MEMORY, "no output element holds the poison written before the call")
        kind = CheckKind.SHAPES if variant else CheckKind.CORRECTNESS
        if not cmp.passed:
            what = f"{name} wrong on {label}: " + "; ".join(cmp.reasons)
            rec.fail(kind, what, **evidence)
            ok = False
            if out.dtype.is_floating_point and not variant:
                self._noop(name, out, exp, tol, args, label)
                if not cmp.unwritten and not cmp.nan_mismatches and not cmp.inf_mismatches:
                    self._lower_precision(name, cmp, exp, args, label, prec, out.dtype)
        else:
            rec.ok(kind, f"{'right on' if variant else 'within the tolerance on'} {self.trials} input set(s)")
            if not variant:
                rec.ok(CheckKind.NOOP, "no output is exactly zeros, an input or a constant")
        return ok

    def _noop(self, name: str, out: torch.Tensor, exp: torch.Tensor, tol: Any, args: list[Any], label: str) -> None:
        verdict = noop_guard(out, exp, tol, args)
        same = None
        if verdict.caught:
            same = verdict.caught
        elif not bool(out.ne(0).any()) and bool(exp.ne(0).any()):
            same = "zeros"
        else:
            for j, a in enumerate(args):
                if isinstance(a, torch.Tensor) and a.shape == out.shape and a.dtype == out.dtype and _same_bits(
                        _plain(a), out):
                    same = f"input {j} unchanged"
                    break
        if same:
            self.rec.fail(CheckKind.NOOP, f"{name} is exactly {same}: the candidate did not compute it", input=label)

    def _lower_precision(self, name: str, cmp: Comparison, exp: torch.Tensor, args: list[Any], label: str,
                         prec: str, out_dtype: torch.dtype) -> None:
        """Name the precision an error belongs to: run the reference itself in bf16 and fp16 and see whose error
        the candidate's is like (fp16 keeps the 10 mantissa bits TF32 keeps: their errors look alike)."""
        if prec not in ("fp32", "fp64") or cmp.rel_l2 <= 0:
            return
        levels: dict[str, float] = {}
        for low, dt in (("bf16", torch.bfloat16), ("fp16 or tf32", torch.float16)):
            try:
                got = flat_outputs(self.p.reference_at(dt, args))[int(name.split()[-1])]
                diff = got.detach().to(torch.float64).to(exp.device) - exp
                denom = float(torch.linalg.vector_norm(exp[torch.isfinite(exp)]))
                err = float(torch.linalg.vector_norm(diff[torch.isfinite(diff)])) / denom if denom else 0.0
            except Exception:
                continue
            if err > 0 and math.isfinite(err):
                levels[low] = err
        if not levels:
            return
        best = min(levels, key=lambda k: abs(math.log(cmp.rel_l2 / levels[k])))
        if 1 / 8 <= cmp.rel_l2 / levels[best] <= 8:
            shown = ", ".join(f"{k} {v:.2g}" for k, v in levels.items())
            self.rec.fail(CheckKind.PRECISION, f"{name}: relative L2 error {cmp.rel_l2:.2g} on a {prec} problem is the"
                          f" error of the reference computed in {best} ({shown}), "
                          f"{cmp.rel_l2 / max(cmp.tolerance.rtol, 1e-300):.3g}x the {prec} tolerance: the candidate "
                          f"computes in {best}", input=label, rel_l2=cmp.rel_l2, reference_in=levels,
                          output_dtype=str(out_dtype))

    # -- timing -------------------------------------------------------------------------------------------------
    def time(self, args: list[Any], expected_label: str) -> Timing | None:
        dev = self.device
        gpu = dev == "cuda"
        reps, warm = (50, 3) if gpu else (2, 1)
        ref = self.p.reference
        cand = self.c.call
        try:
            for _ in range(warm):
                cand(*args)
                ref(*args)
            _sync(dev)
            ct, rt, ev, tails = [], [], [], []
            budget = _PERF() + (2.0 if gpu else 30.0)
            for r in range(reps):
                _sync(dev)
                t0 = _PERF()
                cand(*args)
                _sync(dev)
                ct.append(_PERF() - t0)
                _sync(dev)
                t0 = _PERF()
                ref(*args)
                _sync(dev)
                rt.append(_PERF() - t0)
                if gpu:
                    start, end = _EVENT(enable_timing=True), _EVENT(enable_timing=True)
                    _RECORD(start)
                    cand(*args)
                    _RECORD(end)
                    _EVENT_SYNC(end)  # the current stream is done ...
                    t0 = _PERF()
                    _SYNC()  # ... anything still running is on another stream
                    tails.append(_PERF() - t0)
                    ev.append(_ELAPSED(start, end) / 1e3)
                if r >= 4 and _PERF() > budget:
                    break
            last = cand(*args)
            _sync(dev)
        except Exception as exc:
            self.rec.fail(CheckKind.RUNS, f"raised {type(exc).__name__}: {exc} during the timed runs",
                          where=_where(exc))
            return None
        self._check_replaced("after the timed runs")
        timing = Timing(statistics.median(ct), statistics.median(rt), statistics.median(ev) if ev else None,
                        runs=len(ct))
        if gpu:
            tail = statistics.median(tails)
            idle = statistics.median(_sync_cost() for _ in range(5))
            if tail > max(50e-6, 4 * idle, 0.2 * timing.candidate_device_s):
                self.rec.fail(CheckKind.STREAMS, f"after the current stream finished, the device still worked "
                              f"{tail * 1e6:.0f} us per call (an idle synchronization takes {idle * 1e6:.0f} us): the "
                              "candidate leaves work on other streams, which current-stream timing does not see",
                              tail_s=tail, idle_sync_s=idle, events_s=timing.candidate_events_s,
                              device_s=timing.candidate_device_s)
            else:
                self.rec.ok(CheckKind.STREAMS, f"no work left on other streams ({tail * 1e6:.0f} us after the "
                            "current stream)")
        else:
            self.rec.skip(CheckKind.STREAMS, "streams exist on a GPU only")
        self._floor(timing, args)
        self._after_timing(last, args, expected_label)
        return timing

    def _floor(self, timing: Timing, args: list[Any]) -> None:
        peak = device_peak(self.device)
        try:
            out = flat_outputs(self.p.reference(*args))
            timing.bytes = sum(t.numel() * t.element_size() for t in tensors_of(args)) + sum(
                t.numel() * t.element_size() for t in out if isinstance(t, torch.Tensor))
            timing.flops = count_flops(self.p.reference, args)
        except Exception:
            pass
        if peak is None:
            self.rec.skip(CheckKind.SPEED, f"no physical peak known for this device ({self.device})")
            return
        prec = self._precision_of(self.out_dtypes[0] if self.out_dtypes else None)
        timing.floor_s = floor_seconds(peak, timing.bytes, timing.flops, prec)
        if timing.floor_s > 0 and timing.candidate_device_s < timing.floor_s:
            self.rec.fail(CheckKind.SPEED, f"{timing.candidate_device_s * 1e6:.3g} us per call is below the physical "
                          f"floor of {timing.floor_s * 1e6:.3g} us ({timing.bytes / 1e6:.3g} MB at "
                          f"{peak.bandwidth / 1e12:.3g} TB/s, {timing.flops / 1e9:.3g} GFLOP at the {prec} peak; "
                          f"{peak.source}): impossible, so the work was not done in the timed call",
                          time_s=timing.candidate_device_s, floor_s=timing.floor_s, bytes=timing.bytes,
                          flops=timing.flops)
        else:
            self.rec.ok(CheckKind.SPEED, f"{timing.candidate_device_s * 1e6:.3g} us per call, above the physical floor "
                        f"of {timing.floor_s * 1e6:.3g} us")

    def _after_timing(self, last: Any, args: list[Any], label: str) -> None:
        """The timed runs' last output against the reference, and every output kept from the checks against what
        it held when its call returned (a candidate that reuses a returned buffer changes it later)."""
        try:
            _, expected, _, _ = self._reference(args)
        except Exception:
            return
        outs = flat_outputs(last)
        for i, (o, e) in enumerate(zip(outs, expected, strict=False)):
            if not isinstance(o, torch.Tensor) or not isinstance(e, torch.Tensor):
                continue
            plain = _plain(o.detach().clone())
            prec = self._precision_of(self.out_dtypes[i] if i < len(self.out_dtypes) else None)
            tol = tolerance_for(prec, plain.dtype, self._reduce(args), rms(e), input_scale=rms_of_inputs(args))
            cmp = compare(f"output {i}", plain, e.to(plain.device), tol)
            if not cmp.passed:
                self.rec.fail(CheckKind.AFTER_TIMING, f"output {i} of the last timed call is wrong: "
                              + "; ".join(cmp.reasons), **_evidence(cmp, label + ", after the timed runs"))
                return
        for t in self.kept:
            for i, (o, s) in enumerate(zip(t.outputs, t.snapshots, strict=True)):
                if isinstance(o, torch.Tensor) and s is not None and not _same_bits(_plain(o.detach().clone()), s):
                    self.rec.fail(CheckKind.AFTER_TIMING, f"output {i} of an earlier call ({t.label}) changed during "
                                  "later calls: the candidate reuses a buffer it returned", input=t.label)
                    return
        self.rec.ok(CheckKind.AFTER_TIMING, "the timed runs' output is right and earlier outputs are unchanged")


class _ThreadWatch:
    """While entered, every ``threading.Thread`` started is recorded with the time its ``run`` ends (kcheck's own
    clock, captured at import: a candidate that patches ``time`` cannot move it); ``returned`` is the time the
    watched call returned."""

    def __init__(self) -> None:
        self.started: list[tuple[threading.Thread, dict[str, float]]] = []
        self.returned = math.inf

    def __enter__(self) -> _ThreadWatch:
        self._start = threading.Thread.start
        original, started = self._start, self.started

        def start(thread: threading.Thread, *args: Any, **kwargs: Any) -> None:
            box: dict[str, float] = {}
            run = thread.run

            def timed_run() -> None:
                try:
                    run()
                finally:
                    box["end"] = _PERF()

            thread.run = timed_run  # type: ignore[method-assign]
            started.append((thread, box))
            original(thread, *args, **kwargs)

        threading.Thread.start = start  # type: ignore[method-assign, assignment]
        return self

    def __exit__(self, *exc: object) -> None:
        self.returned = _PERF()
        threading.Thread.start = self._start  # type: ignore[method-assign]


def _library_thread(t: threading.Thread) -> bool:
    """A thread whose work is torch's or Triton's own (a compiler's helper), not the candidate's."""
    target = getattr(t, "_target", None) or getattr(type(t), "run", None)
    module = getattr(target, "__module__", "") or ""
    return module.split(".")[0] in ("torch", "triton")


def _sync_cost() -> float:
    t0 = _PERF()
    _SYNC()
    return _PERF() - t0


def _evidence(cmp: Comparison, label: str) -> dict[str, Any]:
    ev: dict[str, Any] = {"input": label, "shape": list(cmp.shape), "dtype": cmp.dtype,
                          "mismatches": cmp.mismatches, "of": cmp.numel, "max_abs": cmp.max_abs,
                          "rel_l2": cmp.rel_l2, "tolerance": cmp.tolerance.source}
    if cmp.unwritten:
        ev["unwritten"] = cmp.unwritten
    if cmp.mismatches:
        ev["where"] = cmp.location.text
    if cmp.first:
        m = cmp.first[0]
        ev["first"] = f"{list(m.index)}: {m.actual:.6g} (candidate), {m.expected:.6g} (reference)"
    return ev


def evaluate_paths(candidate: str, reference: str, options: Options) -> Evaluation:
    """Evaluate a candidate file against a reference file in this process (see ``evaluate`` for the isolated way)."""
    t0 = _PERF()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    rec = _Recorder()
    ref_module = load_module(reference, "reference")
    problem = problem_from_module(ref_module, device, seeds=options.seeds, trials=options.trials)
    desc = torch.cuda.get_device_name() if device == "cuda" else "CPU"
    ev = Evaluation(Path(candidate).name, Path(reference).name, desc)
    try:
        try:
            cand_module = load_module(candidate, "candidate")
            cand = candidate_from_module(cand_module, problem, device)
        except SpecError:
            raise
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            rec.fail(CheckKind.LOAD, f"the candidate could not be built: {type(exc).__name__}: {exc}",
                     where=_where(exc))
            ev.checks = rec.checks()
            return ev
        rec.ok(CheckKind.LOAD, "imported and built")
        evaluator = Evaluator(problem, cand, options, rec)
        evaluator._check_replaced("on import")
        with torch.no_grad():
            run_checks(evaluator, problem, options, ev)
    finally:
        restore()
    ev.checks = rec.checks()
    ev.seconds = _PERF() - t0
    return ev


def run_checks(e: Evaluator, problem: Problem, options: Options, ev: Evaluation) -> None:
    first: list[Any] | None = None
    nominal_ok = True
    for s in range(options.seeds):
        for t in range(options.trials):
            args = problem.make_inputs(1000 * s + t)
            first = first if first is not None else args
            nominal_ok &= e.run(args, f"seed {s}, trial {t}") is not False
    if first is None:
        return
    if not nominal_ok:
        e.rec.skip(CheckKind.SHAPES, "not checked: the candidate is already wrong at the benchmark's shape")
    else:
        tried: list[str] = []
        for v in problem.variants(first):
            if len(tried) >= options.variants:
                break
            result = e.run(v.make(7), v.label, variant=True)
            if result is not None:
                tried.append(v.label)
        if tried:
            e.rec.ok(CheckKind.SHAPES, f"right on {len(tried)} other shape(s): {'; '.join(tried)}")
        else:
            e.rec.skip(CheckKind.SHAPES, "the reference accepts no other shape (its sizes are fixed)")
    if options.timing:
        ev.timing = e.time(first, "seed 0, trial 0")
    else:
        for k in (CheckKind.STREAMS, CheckKind.SPEED, CheckKind.AFTER_TIMING):
            e.rec.skip(k, "timing turned off")
    ev.trials = e.trials
