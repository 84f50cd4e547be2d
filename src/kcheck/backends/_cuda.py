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


def cuda_resources(source: str, arch: int = 90, name: str = "kernel.cu") -> list[Any]:
    """Compile CUDA C ``source`` for sm_``arch`` with ``nvcc -Xptxas -v`` (no GPU needed) and return the resources of
    every entry function (mangled names as ptxas prints them)."""
    import os
    import shutil
    import subprocess
    import tempfile

    from .._resources import parse_ptxas

    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, name)
        with open(path, "w") as fh:
            fh.write(source)
        out = subprocess.run([nvcc, f"-arch=sm_{arch}", "-Xptxas", "-v", "-cubin", "-o",
                              os.path.join(tmp, "k.cubin"), path], capture_output=True, text=True)
    if out.returncode != 0:
        tail = (out.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"nvcc failed for sm_{arch}: {tail}")
    found = parse_ptxas(out.stdout + out.stderr)
    for r in found:
        r.source = f"nvcc -arch=sm_{arch} -Xptxas -v"
    return found
