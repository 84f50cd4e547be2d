"""Kernel frameworks: one ``Backend`` object per framework answers every question kcheck asks about a kernel.

``backend_of(kernel)`` finds the backend of a Spec's kernel (Triton launchers, CUDA C ``CudaKernel``s, ...; plain
PyTorch callables otherwise). To add a framework, write one module here with a ``Backend`` subclass, ``register``
an instance, and import the module below (the order is the order in which backends are asked).
"""

from __future__ import annotations

from typing import Any

from . import _cuda, _numba, _triton  # noqa: F401  (each registers its backend on import)
from ._base import Backend, LaunchLog, backend_of, backends, by_name, referenced, register
from ._cuda import CudaKernel, cuda_kernels
from ._triton import kernel_frame


def framework(kernel: Any) -> str:
    """The name of ``kernel``'s framework ("triton", "cuda", ..., or "torch"), for reports."""
    return backend_of(kernel).name


def uses_cuda(fn: Any) -> list[CudaKernel]:
    """The CudaKernels ``fn`` is or launches."""
    return cuda_kernels(fn)


def synchronize(device: str) -> None:
    """Wait for queued device work (every framework here queues on the current CUDA stream)."""
    backends()[-1].synchronize(device)


__all__ = ["Backend", "CudaKernel", "LaunchLog", "backend_of", "backends", "by_name", "framework", "kernel_frame",
           "referenced", "register", "synchronize", "uses_cuda"]
