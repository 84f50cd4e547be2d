"""CUDA C kernels (M19): source, a kernel name and a launch rule become a callable on torch tensors.

On a GPU the source is compiled once per (source, name) through CuPy's RawKernel (NVRTC, ``-lineinfo`` so that
compute-sanitizer records carry file:line) and launched on torch tensors, zero-copy through DLPack; torch and CuPy
both use the legacy default stream, so the launch is ordered with torch's work. CuPy is imported lazily: a module
that declares a CUDA kernel imports on a machine without CuPy or a GPU, where kcheck compiles the same source for
sm_90 with nvcc (``cuda_resources``) to check it and report its resources, and skips its cases with the reason.
"""

from __future__ import annotations

from functools import cache
from typing import Any


class CudaKernel:
    """``CudaKernel(source, "row_sum", grid=lambda x, out, m, n: (m,), block=(256,))``, then ``k(x, out, m, n)``.

    ``source`` is CUDA C text or a path to a ``.cu`` file; ``grid``/``block`` are tuples or functions of the call's
    arguments; tensors are passed as pointers, Python ints as ``int``, floats as ``float``.
    """

    def __init__(self, source: str, name: str, *, grid: Any, block: Any, shared_bytes: int = 0) -> None:
        from pathlib import Path

        from .._errors import SpecError

        if not isinstance(name, str) or not name.isidentifier():
            raise SpecError("CudaKernel(name)", name, "give the kernel's C identifier (declare it extern \"C\")")
        path = Path(source) if isinstance(source, str) and source.endswith((".cu", ".cuh")) else None
        if path is not None and not path.exists():
            raise SpecError("CudaKernel(source)", source, "give CUDA C text or the path of an existing .cu file")
        self.source = path.read_text() if path is not None else source
        self.path = str(path) if path is not None else None
        self.name, self.grid, self.block, self.shared_bytes = name, grid, block, shared_bytes
        self.__name__ = name

    def _dims(self, rule: Any, args: tuple[Any, ...]) -> tuple[int, ...]:
        dims = rule(*args) if callable(rule) else rule
        return tuple(int(d) for d in (dims if isinstance(dims, tuple) else (dims,)))

    def __call__(self, *args: Any) -> None:
        import numpy as np
        import torch

        if not torch.cuda.is_available():
            raise RuntimeError(f"CUDA C kernel {self.name} needs a GPU")
        import cupy

        grid, block = self._dims(self.grid, args), self._dims(self.block, args)
        if any(g == 0 for g in grid):
            return
        conv = [cupy.from_dlpack(a.detach()) if isinstance(a, torch.Tensor) else
                (np.int32(a) if isinstance(a, int) and -(2**31) <= a < 2**31 else
                 np.int64(a) if isinstance(a, int) else np.float32(a)) for a in args]
        kernel(self.source, self.name)(grid, block, tuple(conv), shared_mem=self.shared_bytes)

    def resources(self, arch: int = 90) -> list[Any]:
        return [r for r in cuda_resources(self.source, arch) if self.name in r.kernel]


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
        r.source = "nvcc -Xptxas -v"
    return found
