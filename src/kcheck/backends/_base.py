"""What kcheck asks of a kernel framework, answered by one object per framework.

A ``Backend`` recognizes the kernels of its framework (a launcher is recognized by the kernels its globals and
closure hold), says whether this machine can run them and why not, whether Triton-style interpreter checks apply,
which failures cannot be blamed on the kernel here, how to wait for queued work, what the compiled kernels use
(registers, spills, shared memory) and their names for the static checks. The rest of kcheck asks
``backend_of(kernel)`` and never compares a framework's name.

Adding a framework: write one module in this package with a ``Backend`` subclass and register an instance with
``register`` (see ``_numba.py`` for a complete example); nothing outside ``backends/`` changes.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import torch

from .._device import on_prepare

if TYPE_CHECKING:
    from .._device import DeviceInfo


#: Modules whose functions are not walked: they are frameworks, not a user's launchers.
_LIBRARIES = ("torch", "triton", "numpy", "numba", "kcheck")


def _autograd_targets(obj: Any) -> list[Any] | None:
    """The functions behind an autograd Function (the class, or its ``apply``) or an ``nn.Module`` (its class's
    ``forward``), or None when ``obj`` is neither."""
    cls = getattr(obj, "__self__", None) if getattr(obj, "__name__", None) == "apply" else obj
    if isinstance(cls, type) and issubclass(cls, torch.autograd.Function):
        return [f for f in (getattr(cls, "forward", None), getattr(cls, "backward", None)) if callable(f)]
    if isinstance(obj, torch.nn.Module):
        return [type(obj).forward]
    return None


def _walkable(obj: Any) -> bool:
    """A user's function (not a framework's), an autograd Function or an ``nn.Module``: the walk looks inside."""
    if _autograd_targets(obj) is not None:
        return True
    module = (getattr(obj, "__module__", None) or "").split(".")[0]
    return inspect.isfunction(obj) and module not in _LIBRARIES


def _names(target: Any) -> Iterator[Any]:
    """The globals ``target``'s code names and its closure's cells."""
    glb = getattr(target, "__globals__", None) or {}
    code = getattr(target, "__code__", None)
    for name in code.co_names if code is not None else ():
        if name in glb:
            yield glb[name]
    for cell in getattr(target, "__closure__", None) or ():
        try:
            yield cell.cell_contents
        except ValueError:  # an empty cell
            continue


def referenced(fn: Any, depth: int = 2) -> Iterator[Any]:
    """The objects a launcher refers to: itself, then the globals its code names and its closure's cells. An
    autograd Function (or its ``apply``) and an ``nn.Module`` refer to what their ``forward``/``backward`` refer
    to, at the same depth; the walk goes ``depth`` levels into the user's functions it meets (a wrapper calling a
    launcher that calls a Function whose forward calls a helper that launches the kernel), never into a module's
    other globals nor into torch's, Triton's or numpy's own functions."""
    seen: set[int] = set()

    def visit(obj: Any, left: int) -> Iterator[Any]:
        if id(obj) in seen:
            return
        seen.add(id(obj))
        yield obj
        behind = _autograd_targets(obj)
        if behind is None:
            target = inspect.unwrap(obj) if callable(obj) else obj
            behind = [target]
            if target is not obj and id(target) not in seen:  # a wrapper (functools.wraps) of a kernel or launcher
                seen.add(id(target))
                yield target
        for target in behind:
            if target is not obj and _autograd_targets(obj) is not None and id(target) not in seen:
                seen.add(id(target))
                yield target
            for item in _names(target):
                if _autograd_targets(item) is not None:  # a Function or Module: its forward is the same callable
                    yield from visit(item, left)
                elif left > 0 and _walkable(item):
                    yield from visit(item, left - 1)
                elif id(item) not in seen:
                    seen.add(id(item))
                    yield item

    yield from visit(fn, depth)


#: CUDA's grid limits, blocks along x, y and z (CUDA C Programming Guide, "Features and Technical Specifications").
GRID_LIMITS = (2**31 - 1, 65535, 65535)


class LaunchLog:
    """The grids of the kernel launches one call made, as far as the backend sees them (``Backend.launches``).
    Each entry: the kernel's name and a function that gives its grid (evaluated only when asked: a grid given as
    a function of the launch's arguments is not computed on the way)."""

    def __init__(self) -> None:
        self.launches: list[tuple[str, Callable[[], tuple[int, ...]]]] = []

    def past_grid_limit(self) -> str | None:
        """The last launch whose grid is past CUDA's limits, in words, or None."""
        for name, grid_of in reversed(self.launches):
            try:
                grid = (*(int(g) for g in grid_of()), 1, 1)
            except Exception:  # a grid that cannot be evaluated again says nothing here
                continue
            for axis, blocks, limit in zip("xyz", grid[:3], GRID_LIMITS, strict=True):
                if blocks > limit:
                    fix = ("put the longest axis of the grid on x, which takes up to 2**31 - 1 blocks, or loop inside "
                           "a program" if axis != "x" else "loop inside a program, or take larger blocks")
                    return (f"{name}'s launch grid {tuple(grid[:3])} has {blocks} blocks along {axis}, past CUDA's "
                            f"limit of {limit} ({fix})")
        return None


class Backend:
    """One kernel framework. Subclasses override what differs from a plain PyTorch callable."""

    #: The framework's name, as reports and JSON show it.
    name = "torch"

    def kernels(self, fn: Any) -> list[Any]:
        """The kernels of this framework that ``fn`` (a launcher, or a kernel itself) launches."""
        return []

    def recognizes(self, fn: Any) -> bool:
        return bool(self.kernels(fn))

    def prepare_environment(self, gpu: bool) -> None:
        """Set what must be set before the user's modules import (an interpreter or a simulator on a CPU)."""

    def cannot_run(self, device: DeviceInfo) -> str | None:
        """Why this device cannot run the framework's kernels (their cases are skipped with it), or None."""
        return None

    def interpreted(self, device: DeviceInfo) -> bool:
        """Whether kernels run in Triton's interpreter here, where kcheck checks every access and finds races."""
        return False

    def spec_problem(self, kernel: Any) -> str | None:
        """What is wrong with ``kernel`` given as a Spec's kernel (a raw kernel that needs a grid), or None."""
        return None

    def untrusted_precision(self, precision: str, device: DeviceInfo) -> str | None:
        """Why a failing case in this storage precision cannot be blamed on the kernel here, or None."""
        return None

    def untrusted_error(self, exc: BaseException, device: DeviceInfo) -> str | None:
        """Why this exception the kernel raised cannot be blamed on the kernel here, or None."""
        return None

    @contextlib.contextmanager
    def launches(self, device: DeviceInfo) -> Iterator[LaunchLog]:
        """Record the grids of the launches made inside (where the framework lets kcheck see them), so that a
        launch error can say which limit the grid passed."""
        yield LaunchLog()

    def synchronize(self, device: str) -> None:
        """Wait for queued device work, so timings and results are final."""
        if device == "cuda":
            torch.cuda.synchronize()

    def resources(self, kernel: Any, launch: Callable[[], Any], arch: int) -> list[Any]:
        """Registers, spills, shared memory and stack (``Resources``) of the kernels ``kernel`` launches, compiled
        for sm_``arch``; ``launch()`` runs it once on a nominal case where the figures need a launch. [] if none."""
        return []

    def kernel_names(self, fn: Any) -> set[str]:
        """The names of the kernels ``fn`` launches, as the static checks and the sanitizer name them."""
        return set()

    def shares_memory(self, fn: Any) -> bool:
        """Whether the kernels share memory between threads of a block (a missing barrier can race there)."""
        return False

    def preload(self, gpu: bool) -> None:
        """Load what the framework's first kernel in a process would otherwise load inside a case's time (its
        driver, its libraries): a fresh worker does it beside its device start, before it says it is ready (a
        case's time limit never counts it). May raise (ignored)."""


class _Torch(Backend):
    """Plain PyTorch callables (and what every framework's case uses of torch)."""

    def preload(self, gpu: bool) -> None:
        if gpu:  # the float64 references' matrix products take a cuBLAS handle
            torch.cuda.current_blas_handle()


_REGISTRY: list[Backend] = []
_PLAIN = _Torch()


def register(backend: Backend) -> Backend:
    """Add a backend; the first registered one that recognizes a kernel is its backend."""
    if any(b.name == backend.name for b in _REGISTRY):
        raise ValueError(f"a backend named {backend.name!r} is already registered")
    _REGISTRY.append(backend)
    on_prepare(backend.prepare_environment)
    return backend


def backends() -> tuple[Backend, ...]:
    """Every registered backend, then the plain PyTorch one."""
    return (*_REGISTRY, _PLAIN)


def backend_of(kernel: Any) -> Backend:
    """The backend of a Spec's kernel: the first that recognizes it, else plain PyTorch."""
    for b in _REGISTRY:
        try:
            if b.recognizes(kernel):
                return b
        except Exception:  # a framework that cannot inspect this object does not own it
            continue
    return _PLAIN


def by_name(name: str) -> Backend:
    for b in backends():
        if b.name == name:
            return b
    raise KeyError(name)
