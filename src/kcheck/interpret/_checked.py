"""``checked()``: while active, every load, store and atomic that Triton's interpreter executes is checked against the
tensors of its launch before it touches memory, programs may run in another order, and races between programs are
reported at the end of each launch.

Patched (on the classes of ``triton.runtime.interpreter``, only while a ``checked()`` block is open):

- ``GridExecutor.__call__``: starts and ends a launch (races are found at its end);
- ``GridExecutor._init_args_hst``: the launch's arguments as the kernel sees them (host copies) give its regions;
- ``InterpreterBuilder.set_grid_dim`` / ``set_grid_idx``: the grid, and the program run at each step of the
  interpreter's loop (another one than it asks for when the order is reversed or random);
- ``InterpreterBuilder.create_masked_load`` / ``create_masked_store`` / ``create_atomic_rmw`` / ``create_atomic_cas``:
  every memory access (plain loads and stores, block pointers and tensor descriptors all end there). Out-of-bounds
  lanes are masked off (atomic CAS lanes redirected to a scratch word) before the interpreter runs the access;
- the builder's pointer operations (``create_addptr``, ``create_splat``, ``create_broadcast``, ...): each pointer
  they make carries the address of the tensor argument it was computed from, so an access is checked against that
  tensor, not against whichever allocation it lands in. Those that a Triton lacks are left out: their pointers
  are checked against every tensor of the launch.
"""

from __future__ import annotations

import inspect
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import CodeType, FrameType
from typing import Any

import numpy as np

from .._findings import Finding, deduplicate
from ._compat import Internals, InterpreterMismatch, internals
from ._launch import Launch, Record, Region, regions_of
from ._semantics import scalar_index

ORDERS = ("sequential", "reversed", "random")
_PATTERNS = {"write-write": "race-WW", "ww": "race-WW", "race-ww": "race-WW",
             "read-write": "race-RW", "rw": "race-RW", "race-rw": "race-RW",
             "race": "*", "any": "*", "*": "*"}

#: A benign race: ``(tensor, pattern)`` with tensor an argument name, ``"kernel.argument"`` or ``"*"`` and pattern
#: ``"write-write"``, ``"read-write"`` or ``"any"``; or a predicate on the race's record.
Benign = tuple[str, str] | Callable[[Record], bool]


@dataclass
class Report:
    """What a ``checked()`` block found. ``records`` keeps, beside each finding, the tensor argument it concerns and
    (out-of-bounds) the first bad lane; ``findings`` are the bare findings, ``deduplicated()`` merged by line."""

    order: str
    triton_version: str
    records: list[Record] = field(default_factory=list)
    launches: int = 0  # kernel launches run under check
    programs: int = 0  # programs run, over all launches
    benign: int = 0  # races left out as declared benign

    @property
    def findings(self) -> list[Finding]:
        return [r.finding for r in self.records]

    @property
    def ok(self) -> bool:
        return not self.records

    def deduplicated(self) -> list[Finding]:
        return deduplicate(self.findings)

    def describe(self) -> str:
        head = (f"{self.launches} launch{'es' if self.launches != 1 else ''}, {self.programs} programs checked in "
                f"triton {self.triton_version}'s interpreter (order: {self.order})")
        if self.ok:
            return head + ": no findings" + (f" ({self.benign} declared benign)" if self.benign else "")
        return "\n".join([head + ":", *("  " + f.describe() for f in self.deduplicated())])


class _Session:
    def __init__(self, report: Report, ti: Internals, races: bool, order: str, seed: int,
                 extra: list[Region], benign: list[Benign]) -> None:
        self.report = report
        self.ti = ti
        self.races = races
        self.order = order
        self.rng = np.random.default_rng(seed)
        self.extra = extra
        self.benign = benign
        self.launch: Launch | None = None
        self.executor: Any = None
        self._codes: frozenset[CodeType] = frozenset()
        self._codes_n = -1
        self._scratch = np.zeros(8, dtype=np.uint64)  # atomic CAS lanes out of bounds go here

    # the source line of the access: the innermost frame running a (rewritten) @triton.jit function of the user
    def where(self) -> tuple[str | None, int | None]:
        rewritten = self.ti.rewritten
        if len(rewritten) != self._codes_n:
            codes = set()
            for fn in list(rewritten.values()):
                code = getattr(fn, "__code__", None)
                if code is not None and not code.co_filename.startswith(self.ti.triton_dir):
                    codes.add(code)
            if self.executor is not None and hasattr(self.executor.fn, "__code__"):
                codes.add(self.executor.fn.__code__)
            self._codes, self._codes_n = frozenset(codes), len(rewritten)
        f: FrameType | None = sys._getframe(2)
        while f is not None:
            if f.f_code in self._codes:
                return f.f_code.co_filename, f.f_lineno
            f = f.f_back
        return None, None

    def is_benign(self, rec: Record) -> bool:
        for b in self.benign:
            if callable(b):
                if b(rec):
                    return True
                continue
            tensor, pattern = b
            kind = _PATTERNS[pattern.lower()]
            if kind != "*" and kind != rec.finding.kind:
                continue
            if tensor in ("*", rec.tensor, f"{rec.finding.kernel}.{rec.tensor}"):
                return True
        return False

    def end(self, launch: Launch) -> None:
        self.report.launches += 1
        self.report.programs += launch.step
        self.report.records.extend(launch.records)
        if self.races:
            for rec in launch.races_found():
                if self.is_benign(rec):
                    self.report.benign += 1
                else:
                    self.report.records.append(rec)


_SESSIONS: list[_Session] = []
_ORIGINAL: dict[str, Any] = {}


def _active() -> _Session | None:
    return _SESSIONS[-1] if _SESSIONS else None


def _launch() -> Launch | None:
    s = _SESSIONS[-1] if _SESSIONS else None
    return s.launch if s is not None else None


def _itemsize(handle: Any) -> int:
    return max(1, int(handle.get_element_ty().primitive_bitwidth) // 8)


# -- the wrappers -----------------------------------------------------------------------------------------------------
def _grid_call(self: Any, *args: Any, **kwargs: Any) -> Any:
    s = _active()
    if s is None or s.launch is not None:
        return _ORIGINAL["GridExecutor.__call__"](self, *args, **kwargs)
    name = getattr(self.fn, "__name__", "?")
    launch = Launch(name, s.order, s.rng, s.races)
    s.launch, s.executor, s._codes_n = launch, self, -1
    try:
        return _ORIGINAL["GridExecutor.__call__"](self, *args, **kwargs)
    except Exception as e:
        if isinstance(e.__cause__, InterpreterMismatch):  # the interpreter wraps errors in InterpreterError
            raise e.__cause__ from None
        raise
    finally:
        s.launch = s.executor = None
        s.end(launch)


def _init_args_hst(self: Any, args_dev: Any, kwargs: Any) -> Any:
    result = _ORIGINAL["GridExecutor._init_args_hst"](self, args_dev, kwargs)
    s = _active()
    if s is not None and s.launch is not None and s.executor is self:
        args_hst, kwargs_hst = result
        try:
            named: dict[str, Any] = inspect.getcallargs(self.fn, *args_hst, **kwargs_hst)
        except TypeError:
            named = {**dict(zip(self.arg_names, args_hst, strict=False)), **kwargs_hst}
        found = list(regions_of(named.items(), s.ti.tensor_descriptor))
        s.launch.set_regions(found + s.extra)
    return result


def _set_grid_dim(self: Any, nx: int, ny: int, nz: int) -> Any:
    result = _ORIGINAL["InterpreterBuilder.set_grid_dim"](self, nx, ny, nz)
    launch = _launch()
    if launch is not None:
        launch.set_grid((int(nx), int(ny), int(nz)))
    return result


def _set_grid_idx(self: Any, x: int, y: int, z: int) -> Any:
    launch = _launch()
    if launch is None:
        return _ORIGINAL["InterpreterBuilder.set_grid_idx"](self, x, y, z)
    pid = launch.next_program(int(x), int(y), int(z))
    if pid is None:
        s = _active()
        version = s.ti.version if s is not None else "?"
        raise InterpreterMismatch(
            f"kcheck.interpret cannot follow the programs of triton {version}'s interpreter: it asked for program "
            f"({x},{y},{z}) at step {launch.step} of grid {launch.grid}, where kcheck expects the grid in order, x "
            f"outermost (its internals changed)")
    return _ORIGINAL["InterpreterBuilder.set_grid_idx"](self, *pid)


def _masked_load(self: Any, ptrs: Any, mask: Any, *rest: Any, **kw: Any) -> Any:
    s = _active()
    launch = s.launch if s is not None else None
    if launch is not None and s is not None:
        m = launch.access(ptrs.data, _mask_data(mask), _itemsize(ptrs), "read", s.where,
                          root=_access_root(ptrs, s.ti.handle_cls))
        if m is not None:
            mask = _new_mask(s.ti, mask, m)
    return _ORIGINAL["InterpreterBuilder.create_masked_load"](self, ptrs, mask, *rest, **kw)


def _masked_store(self: Any, ptrs: Any, value: Any, mask: Any, *rest: Any, **kw: Any) -> Any:
    s = _active()
    launch = s.launch if s is not None else None
    if launch is not None and s is not None:
        m = launch.access(ptrs.data, _mask_data(mask), _itemsize(ptrs), "write", s.where,
                          root=_access_root(ptrs, s.ti.handle_cls))
        if m is not None:
            mask = _new_mask(s.ti, mask, m)
    return _ORIGINAL["InterpreterBuilder.create_masked_store"](self, ptrs, value, mask, *rest, **kw)


def _atomic_rmw(self: Any, op: Any, ptr: Any, val: Any, mask: Any, sem: Any, *rest: Any, **kw: Any) -> Any:
    s = _active()
    launch = s.launch if s is not None else None
    if launch is not None and s is not None:
        m = launch.access(ptr.data, _mask_data(mask), _itemsize(ptr), "atomic", s.where,
                          sync=sem != s.ti.relaxed, root=_access_root(ptr, s.ti.handle_cls))
        if m is not None:
            mask = _new_mask(s.ti, mask, m)
    return _ORIGINAL["InterpreterBuilder.create_atomic_rmw"](self, op, ptr, val, mask, sem, *rest, **kw)


def _atomic_cas(self: Any, ptr: Any, cmp: Any, val: Any, sem: Any, *rest: Any, **kw: Any) -> Any:
    s = _active()
    launch = s.launch if s is not None else None
    if launch is not None and s is not None:
        m = launch.access(ptr.data, None, _itemsize(ptr), "atomic", s.where, sync=sem != s.ti.relaxed,
                          root=_access_root(ptr, s.ti.handle_cls))
        if m is not None:  # no mask to clear: point the bad lanes at a scratch word
            scratch = np.uint64(s._scratch.ctypes.data)
            ptr = s.ti.handle_cls(np.where(m, ptr.data, scratch).astype(np.uint64), ptr.dtype)
    return _ORIGINAL["InterpreterBuilder.create_atomic_cas"](self, ptr, cmp, val, sem, *rest, **kw)


# -- where a pointer comes from ----------------------------------------------------------------------------------------
_ROOT = "_kcheck_root"  # attribute set on the interpreter's pointer TensorHandles
_MIXED = -1  # computed from several tensors, or from an address kcheck did not follow

#: Builder methods that make pointers out of pointers without touching memory: the result keeps its operands' root.
POINTER_OPS = ("create_addptr", "create_splat", "create_broadcast", "create_expand_dims", "create_reshape",
               "create_trans", "create_select", "create_cat", "create_join", "create_split", "create_bitcast",
               "create_unsplat")


def _root(h: Any, handle_cls: Any) -> int | None:
    """The address of the tensor argument a pointer handle was computed from; ``_MIXED`` when unknown; None for a
    handle that is not a pointer. A one-element pointer no operation made is a kernel argument (or a pointer made
    from an integer): its own address is its root."""
    if not isinstance(h, handle_cls):
        return None
    is_ptr = getattr(h.dtype, "is_ptr", None)
    if is_ptr is None or not is_ptr():
        return None
    root = getattr(h, _ROOT, None)
    if root is not None:
        return int(root)
    data = h.data
    if isinstance(data, np.ndarray) and data.size == 1:
        return int(data.reshape(-1)[0]) & (2**64 - 1)
    return _MIXED


def _pointer_op(key: str) -> Callable[..., Any]:
    def wrapper(self: Any, *args: Any, **kw: Any) -> Any:
        out = _ORIGINAL[key](self, *args, **kw)
        s = _active()
        if s is not None and s.launch is not None:
            cls = s.ti.handle_cls
            roots = {r for a in (*args, *kw.values()) if (r := _root(a, cls)) is not None}
            if roots:
                root = roots.pop() if len(roots) == 1 else _MIXED
                for o in out if isinstance(out, tuple) else (out,):
                    if _root(o, cls) is not None:
                        setattr(o, _ROOT, root)
        return out

    return wrapper


def _access_root(ptrs: Any, handle_cls: Any) -> int | None:
    r = _root(ptrs, handle_cls)
    return None if r is None or r == _MIXED else r


def _mask_data(mask: Any) -> np.ndarray | None:
    """A mask's lanes: masks are TensorHandles, but block pointers and tensor descriptors pass bare numpy arrays."""
    if mask is None or isinstance(mask, np.ndarray):
        return mask
    return np.asarray(mask.data)


def _new_mask(ti: Internals, mask: Any, lanes: np.ndarray) -> Any:
    """``lanes`` in the form the interpreter gave the mask in."""
    if isinstance(mask, np.ndarray):
        return lanes
    if mask is None:
        import triton.language as tl

        return ti.handle_cls(lanes, tl.int1)
    return ti.handle_cls(lanes, mask.dtype)


_PATCHES: dict[str, Callable[..., Any]] = {
    "GridExecutor.__call__": _grid_call,
    "GridExecutor._init_args_hst": _init_args_hst,
    "InterpreterBuilder.set_grid_dim": _set_grid_dim,
    "InterpreterBuilder.set_grid_idx": _set_grid_idx,
    "InterpreterBuilder.create_masked_load": _masked_load,
    "InterpreterBuilder.create_masked_store": _masked_store,
    "InterpreterBuilder.create_atomic_rmw": _atomic_rmw,
    "InterpreterBuilder.create_atomic_cas": _atomic_cas,
}


def _install(ti: Internals) -> None:
    classes = {"GridExecutor": ti.executor_cls, "InterpreterBuilder": ti.builder_cls}
    patches = dict(_PATCHES)
    for meth in POINTER_OPS:
        if callable(ti.builder_cls.__dict__.get(meth)):
            patches[f"InterpreterBuilder.{meth}"] = _pointer_op(f"InterpreterBuilder.{meth}")
    for key, wrapper in patches.items():
        cls_name, meth = key.split(".")
        cls = classes[cls_name]
        original = cls.__dict__[meth]
        _ORIGINAL[key] = original
        wrapper.__wrapped__ = original  # type: ignore[attr-defined]
        setattr(cls, meth, wrapper)


def _uninstall(ti: Internals) -> None:
    classes = {"GridExecutor": ti.executor_cls, "InterpreterBuilder": ti.builder_cls}
    for key, original in list(_ORIGINAL.items()):
        cls_name, meth = key.split(".")
        setattr(classes[cls_name], meth, original)
    _ORIGINAL.clear()


def _extra_regions(tensors: Mapping[str, Any] | Sequence[Any] | None) -> list[Region]:
    if tensors is None:
        return []
    items = tensors.items() if isinstance(tensors, Mapping) else ((f"tensors[{i}]", t) for i, t in enumerate(tensors))
    found = []
    for name, t in items:
        regions = list(regions_of([(name, t)], None))
        if not regions:
            raise TypeError(f"checked(tensors=...): {name} is not a tensor ({type(t).__name__})")
        found += regions
    return found


def _check_benign(benign: Iterable[Benign]) -> list[Benign]:
    out: list[Benign] = []
    for b in benign:
        if callable(b):
            out.append(b)
        elif isinstance(b, tuple) and len(b) == 2 and all(isinstance(v, str) for v in b):
            if b[1].lower() not in _PATTERNS:
                raise ValueError(f"checked(benign=...): unknown pattern {b[1]!r} in {b!r}; use 'write-write', "
                                 f"'read-write' or 'any'")
            out.append(b)
        else:
            raise TypeError(f"checked(benign=...): {b!r} is neither (tensor, pattern) nor a predicate")
    return out


def _require_interpreter(ti: Internals) -> None:
    import triton

    knobs = getattr(triton, "knobs", None)
    on = bool(knobs.runtime.interpret) if knobs is not None else os.environ.get("TRITON_INTERPRET", "0") not in (
        "", "0")
    if not on:
        raise RuntimeError(f"kcheck.interpret.checked() checks kernels in Triton's interpreter, which is off in this "
                           f"process (triton {ti.version}): set TRITON_INTERPRET=1 before the kernels' modules (and "
                           f"triton) are imported")


@contextmanager
def checked(tensors: Mapping[str, Any] | Sequence[Any] | None = None, *, races: bool = True,
            order: str = "sequential", seed: int = 0, benign: Iterable[Benign] = ()) -> Iterator[Report]:
    """Check every Triton kernel launched in the interpreter while the block runs; yields the :class:`Report`.

    - Bounds: each address a load, store or atomic touches under its mask must lie in a tensor argument of the
      launch (for a view, the bytes its shape and strides may reach) or in ``tensors`` (extra memory a kernel may
      reach, e.g. through an address passed as an integer: a mapping name -> tensor, or a sequence). A lane out of
      bounds is a finding (kernel, file:line of the ``tl.load``/``tl.store``, program id, lane, nearest tensor,
      distance) and is masked off before the access runs, so memory is never touched and the launch goes on.
    - ``races``: per launch, addresses written without atomics by two programs (race-WW), or read by one program and
      written without atomics by another (race-RW); atomics with a release/acquire on a common address order them.
      ``benign`` leaves out intended races: ``[("out", "write-write")]``, ``[("kernel.out", "any")]``, or a predicate
      on the :class:`Record`.
    - ``order``: "sequential" (the interpreter's), "reversed" or "random" (``seed``): the order programs run in, so a
      kernel that depends on program order gives another result, as it can on a GPU.

    Kernels must run in the interpreter (``TRITON_INTERPRET=1`` set before their module was imported); the block
    raises :class:`InterpreterMismatch` at once when this Triton's interpreter internals differ from those kcheck
    patches.
    """
    if order not in ORDERS:
        raise ValueError(f"checked(order={order!r}): use one of {', '.join(ORDERS)}")
    ti = internals()
    _require_interpreter(ti)
    report = Report(order=order, triton_version=ti.version)
    session = _Session(report, ti, races, order, seed, _extra_regions(tensors), _check_benign(benign))
    if not _SESSIONS:
        _install(ti)
    _SESSIONS.append(session)
    try:
        with scalar_index():  # a loop bound passed as an argument runs under triton 3.6 and NumPy 2.4 too
            yield report
    finally:
        _SESSIONS.remove(session)
        if not _SESSIONS:
            _uninstall(ti)
