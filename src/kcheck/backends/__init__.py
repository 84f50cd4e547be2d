"""One module per kernel framework: what kcheck must know to run and trust each (M19)."""

from __future__ import annotations

from typing import Any

from .._device import DeviceInfo
from ._torch import synchronize
from ._triton import interpreter_bf16_problem, raw_kernel_problem, uses_triton


def framework(kernel: Any) -> str:
    """'triton' for a launcher of Triton kernels, else 'torch' (a plain callable on tensors)."""
    return "triton" if uses_triton(kernel) else "torch"


def untrusted_reason(kind: str, storage_name: str, device: DeviceInfo) -> str | None:
    """Why a failure of a case in this framework and storage dtype cannot be blamed on the kernel here, or None."""
    if kind == "triton" and device.interpreter and storage_name == "bf16":
        return interpreter_bf16_problem()
    return None


__all__ = ["framework", "raw_kernel_problem", "synchronize", "untrusted_reason"]
