"""CUDA C kernels through CuPy's RawKernel, launched on torch tensors (zero-copy through DLPack).

A first, minimal loader (GPU only; CuPy is imported lazily, so a module that uses it still imports on a machine
without it): compiled once per (source, name) with ``-lineinfo`` so that compute-sanitizer records carry file:line.
Torch and CuPy both launch on the legacy default stream here, so the kernel is ordered with torch's work.
"""

from __future__ import annotations

from functools import cache
from typing import Any


@cache
def kernel(source: str, name: str) -> Any:
    import cupy

    return cupy.RawKernel(source, name, options=("-lineinfo",))


def launch(source: str, name: str, grid: tuple[int, ...], block: tuple[int, ...], *args: Any) -> None:
    import cupy
    import numpy as np
    import torch

    conv = [cupy.from_dlpack(a) if isinstance(a, torch.Tensor) else np.int32(a) for a in args]
    kernel(source, name)(grid, block, tuple(conv))
