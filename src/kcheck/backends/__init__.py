"""One module per kernel framework: what kcheck must know to run and trust each."""

from __future__ import annotations

from typing import Any

from .._device import DeviceInfo
from ._cuda import CudaKernel
from ._torch import synchronize
from ._triton import interpreter_bf16_problem, interpreter_limitation, kernel_frame, raw_kernel_problem, uses_triton


def uses_cuda(fn: Any) -> list[CudaKernel]:
    """The CudaKernels ``fn`` is or launches (found in its globals and closure, like Triton launchers)."""
    import inspect

    if isinstance(fn, CudaKernel):
        return [fn]
    target = inspect.unwrap(fn) if callable(fn) else fn
    glb = getattr(target, "__globals__", None) or {}
    code = getattr(target, "__code__", None)
    found = [glb.get(n) for n in (code.co_names if code is not None else ())]
    for cell in getattr(target, "__closure__", None) or ():
        try:
            found.append(cell.cell_contents)
        except ValueError:
            continue
    return [k for k in found if isinstance(k, CudaKernel)]


def framework(kernel: Any) -> str:
    """'triton' for a launcher of Triton kernels, 'cuda' for CUDA C kernels, else 'torch' (a plain callable)."""
    if uses_triton(kernel):
        return "triton"
    return "cuda" if uses_cuda(kernel) else "torch"


def untrusted_reason(kind: str, storage_name: str, device: DeviceInfo) -> str | None:
    """Why a failure of a case in this framework and storage dtype cannot be blamed on the kernel here, or None."""
    if kind == "triton" and device.interpreter and storage_name == "bf16":
        return interpreter_bf16_problem()
    return None


def untrusted_error(kind: str, exc: BaseException, device: DeviceInfo) -> str | None:
    """Why an exception the kernel raised in this framework cannot be blamed on the kernel here, or None."""
    if kind == "triton" and device.interpreter:
        return interpreter_limitation(exc)
    return None


__all__ = ["CudaKernel", "framework", "kernel_frame", "raw_kernel_problem", "synchronize", "untrusted_error",
           "untrusted_reason", "uses_cuda"]
