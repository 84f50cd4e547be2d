"""Numba CUDA kernels (``@numba.cuda.jit``): run on a GPU where numba's CUDA target works, else in Numba's CUDA
simulator.

A launcher is recognized by the CUDA kernels its globals and closure hold: a ``CUDADispatcher`` on a GPU, a
``FakeCUDAKernel`` under the simulator. The class is recognized by name and module, so that testing an object never
imports numba.

On a machine without a GPU kcheck sets ``NUMBA_ENABLE_CUDASIM=1`` before the user's modules import numba (numba
reads it once, at import). The simulator (https://numba.readthedocs.io/en/stable/cuda/simulator.html) runs each
block's threads as Python threads over NumPy arrays, one block after another:

- an index past an array's end raises ``IndexError`` (a GPU reads or writes out of bounds silently), so an
  unguarded tail fails with the thread and block that went out;
- a thread runs until it blocks on ``cuda.syncthreads()`` or Python switches threads, so a missing barrier gives wrong
  values under the schedule Python happens to choose: a race-free run on the simulator is weak evidence;
- the kernel's Python runs on NumPy scalars with NumPy's promotion rules, not Numba's typing: a Python float with a
  float16 value stays float16 (NumPy 2, NEP 50) where a compiled kernel computes in float64, and NumPy has no
  bfloat16 or float8. A failure in those precisions on the simulator is not blamed on the kernel.

A launcher takes kcheck's torch tensors: on a GPU ``numba.cuda.as_cuda_array(t)`` (torch CUDA tensors export
``__cuda_array_interface__``; no copy); on the simulator ``t.numpy()`` (a view of the tensor's memory; the simulator
copies it in and writes it back after the launch). See ``examples/numba_scale_add.py``.
"""

from __future__ import annotations

import os
import sys
import types
from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING, Any

from ._base import Backend, referenced, register

if TYPE_CHECKING:
    from .._device import DeviceInfo

#: The classes of ``@cuda.jit`` results: numba's CUDA target and numba-cuda (``CUDADispatcher``), the simulator's
#: (``FakeCUDAKernel``).
_KERNEL_CLASSES = frozenset({"CUDADispatcher", "FakeCUDAKernel"})
_SIM_ENV = "NUMBA_ENABLE_CUDASIM"


def _numba_loaded() -> bool:
    return "numba" in sys.modules or "numba_cuda" in sys.modules


def is_numba_kernel(obj: Any) -> bool:
    """Whether ``obj`` is a ``@numba.cuda.jit`` kernel or device function (never imports numba)."""
    if not _numba_loaded() or isinstance(obj, type):
        return False
    return any(c.__name__ in _KERNEL_CLASSES and c.__module__.startswith(("numba", "numba_cuda"))
               for c in type(obj).__mro__)


def numba_kernels(fn: Any) -> list[Any]:
    """The Numba CUDA kernels ``fn`` is or launches (found in its globals and closure)."""
    return [k for k in referenced(fn) if is_numba_kernel(k)]


def simulator_on() -> bool:
    """Whether Numba's CUDA simulator is (or, numba not yet imported, will be) in effect in this process."""
    config = getattr(sys.modules.get("numba.core.config"), "ENABLE_CUDASIM", None)
    if config is not None:
        return bool(config)
    return os.environ.get(_SIM_ENV, "0").strip() not in ("", "0")


def _python_func(kernel: Any) -> Any:
    return getattr(kernel, "py_func", None) or getattr(kernel, "__wrapped__", None) or kernel


def _codes(code: types.CodeType) -> Iterator[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


def _names(kernel: Any) -> set[str]:
    code = getattr(_python_func(kernel), "__code__", None)
    return {n for c in _codes(code) for n in c.co_names} if code is not None else set()


def numpy_aliases() -> None:
    """Put back ``numpy.row_stack``, an alias of ``numpy.vstack`` that NumPy 2.4 removed, where it is missing: numba
    releases before 0.62 register an implementation for it when they first compile for CUDA, and fail there with
    ``AttributeError: module 'numpy' has no attribute 'row_stack'`` (newer ones check for it)."""
    import numpy

    if not hasattr(numpy, "row_stack"):
        numpy.row_stack = numpy.vstack  # type: ignore[attr-defined]


@cache
def _gpu_problem() -> str | None:
    """Why numba's CUDA target cannot compile and launch here, or None: imports numba.cuda and compiles a trivial
    kernel to PTX (what needs the driver and NVVM, the pieces a pip environment most often lacks)."""
    numpy_aliases()
    try:
        from numba import cuda
    except Exception as exc:  # ImportError, or numba's own errors at import
        return (f"numba.cuda does not import: {type(exc).__name__}: {exc} (install numba, or NVIDIA's numba-cuda: "
                "https://nvidia.github.io/numba-cuda/)")
    try:
        if not cuda.is_available():
            return "numba.cuda finds no usable CUDA driver or GPU (numba.cuda.is_available() is False)"

        def _probe(out: Any) -> None:
            out[0] = 1

        cuda.compile_ptx(_probe, "void(int32[:])")
    except Exception as exc:
        return f"numba.cuda cannot compile a kernel here: {type(exc).__name__}: {str(exc).strip()[:300]}"
    return None


@cache
def _simulator_problem() -> str | None:
    try:
        import numba.cuda  # noqa: F401  (numba reads its configuration here)
    except Exception as exc:
        return f"numba is not importable: {type(exc).__name__}: {exc}"
    if not simulator_on():  # numba had been imported before the variable was set
        return (f"numba was imported before {_SIM_ENV}=1 was set, so its CUDA simulator is off and there is no GPU: "
                f"set {_SIM_ENV}=1 before importing numba")
    return None


def _is_simulator_error(exc: BaseException) -> bool:
    tb = exc.__traceback__
    last = None
    while tb is not None:
        last = tb.tb_frame.f_code.co_filename
        tb = tb.tb_next
    return last is not None and f"cuda{os.sep}simulator" in last


class NumbaBackend(Backend):
    """``numba.cuda`` kernels: on a GPU through numba's CUDA target, without one in Numba's CUDA simulator."""

    name = "numba"

    def kernels(self, fn: Any) -> list[Any]:
        return numba_kernels(fn)

    def prepare_environment(self, gpu: bool) -> None:
        # numba reads it once, when numba.core.config is imported: before the user's modules import numba
        if not gpu and _SIM_ENV not in os.environ:
            os.environ[_SIM_ENV] = "1"
        if gpu:
            numpy_aliases()

    def cannot_run(self, device: DeviceInfo) -> str | None:
        if not device.is_gpu:
            if not simulator_on():
                return (f"numba.cuda kernels need a GPU or Numba's CUDA simulator ({_SIM_ENV}=1 before numba is "
                        "imported)")
            return _simulator_problem()
        if simulator_on():
            return (f"{_SIM_ENV}=1 on a GPU machine: kcheck hands the kernel CUDA tensors, which the simulator cannot "
                    f"read; unset {_SIM_ENV}")
        return _gpu_problem()

    def untrusted_precision(self, precision: str, device: DeviceInfo) -> str | None:
        if device.is_gpu or not simulator_on() or precision in ("fp32", "tf32", "fp64"):
            return None
        return (f"{precision} on Numba's CUDA simulator: the kernel runs as Python on NumPy scalars, where a Python "
                "float with a float16 value stays float16 (NEP 50) while a compiled kernel computes in float64, and "
                "NumPy has no bfloat16 or float8")

    def untrusted_error(self, exc: BaseException, device: DeviceInfo) -> str | None:
        if device.is_gpu or not simulator_on():
            return None
        if isinstance(exc, NotImplementedError) or (isinstance(exc, AssertionError) and _is_simulator_error(exc)):
            return f"Numba's CUDA simulator does not support what the kernel does ({type(exc).__name__}: {exc})"
        return None

    def synchronize(self, device: str) -> None:
        super().synchronize(device)  # torch's queue: launches on the legacy default stream, as numba's are
        if device == "cuda" and not simulator_on() and "numba" in sys.modules:
            from numba import cuda

            cuda.synchronize()

    def kernel_names(self, fn: Any) -> set[str]:
        return {getattr(_python_func(k), "__name__", "?") for k in numba_kernels(fn)}

    def shares_memory(self, fn: Any) -> bool:
        return any("shared" in _names(k) for k in numba_kernels(fn))


register(NumbaBackend())
