"""CUDA C kernels: source, a kernel name and a launch rule become a callable on torch tensors.

On a GPU the source is compiled once per (source, name, options, architecture) with nvcc, the compiler a CUDA C
author ships with (``-cubin -lineinfo -arch=sm_XY`` plus the kernel's own options; cached on disk under
``$KCHECK_CACHE_DIR`` or ``~/.cache/kcheck``), loaded through CuPy and launched on torch tensors, zero-copy through
DLPack; torch and CuPy both use the legacy default stream, so the launch is ordered with torch's work. Not CuPy's
own NVRTC path: it appends ``-ftz=true`` after the user's options (cupy/cupy#9576), so a kernel would be checked with
subnormals flushed although nvcc keeps them by default; that path is only the fallback where nvcc is missing, with a
warning. Source given as a string inside a Python file carries a ``#line`` directive, so compute-sanitizer's records
name that file and line. CuPy is imported lazily: a module that declares a CUDA kernel imports on a machine without
CuPy or a GPU, where kcheck compiles the same source for sm_90 (``cuda_resources``) to check it and report its
resources, and skips its cases with the reason.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._errors import SpecError
from .._resources import parse_ptxas
from ._base import Backend, referenced, register

if TYPE_CHECKING:
    from .._device import DeviceInfo


class CudaKernel:
    """``CudaKernel(source, "row_sum", grid=lambda x, out, m, n: (m,), block=(256,))``, then ``k(x, out, m, n)``.

    ``source`` is CUDA C text or a path to a ``.cu`` file; ``grid``/``block`` are tuples or functions of the call's
    arguments; tensors are passed as pointers, Python ints as ``int``, floats as ``float``; ``options`` are extra
    nvcc flags (``("--use_fast_math",)``), used both to run the kernel and for its resource report.
    """

    def __init__(
        self,
        source: str,
        name: str,
        *,
        grid: Any,
        block: Any,
        shared_bytes: int = 0,
        options: Sequence[str] = (),
    ) -> None:

        if not isinstance(name, str) or not name.isidentifier():
            raise SpecError("CudaKernel(name)", name, "give the kernel's C identifier (declare it extern \"C\")")
        path = Path(source) if isinstance(source, str) and source.endswith((".cu", ".cuh")) else None
        if path is not None and not path.exists():
            raise SpecError("CudaKernel(source)", source, "give CUDA C text or the path of an existing .cu file")
        if isinstance(options, str) or not all(isinstance(o, str) for o in options):
            raise SpecError("CudaKernel(options)", options, 'give a sequence of nvcc flags, e.g. ("--use_fast_math",)')
        self.source = path.read_text() if path is not None else source
        self.path = str(path.resolve()) if path is not None else None
        self.name, self.grid, self.block, self.shared_bytes = name, grid, block, shared_bytes
        self.options = tuple(options)
        self.__name__ = name
        # sanitizer records should name the user's file: the .cu itself, or the Python file holding the string
        self._located = _with_line_directive(self.source, self.path or sys._getframe(1).f_code.co_filename)

    def _dims(self, rule: Any, args: tuple[Any, ...]) -> tuple[int, ...]:
        dims = rule(*args) if callable(rule) else rule
        return tuple(int(d) for d in (dims if isinstance(dims, tuple) else (dims,)))

    def __call__(self, *args: Any) -> None:
        import torch

        if not torch.cuda.is_available():
            raise RuntimeError(f"CUDA C kernel {self.name} needs a GPU")
        grid, block = self._dims(self.grid, args), self._dims(self.block, args)
        if any(g == 0 for g in grid):
            return
        fn = kernel(self._located, self.name, self.options)
        fn(grid, block, _convert(args), shared_mem=self.shared_bytes)

    def resources(self, arch: int = 90) -> list[Any]:
        return [r for r in cuda_resources(self.source, arch, options=self.options) if self.name in r.kernel]


def _with_line_directive(source: str, filename: str) -> str:
    """Prefix ``#line N "file"`` when ``source`` appears verbatim in ``filename`` (a string literal in a .py file,
    or the .cu file itself), so that line info and sanitizer records point into that file."""
    try:
        text = Path(filename).read_text()
    except (OSError, UnicodeDecodeError):
        return source
    at = text.find(source)
    if at < 0 or not source:
        return source
    line = text.count("\n", 0, at) + 1
    quoted = str(Path(filename).resolve()).replace("\\", "\\\\").replace('"', '\\"')
    return f'#line {line} "{quoted}"\n{source}'


def _convert(args: tuple[Any, ...]) -> tuple[Any, ...]:
    import cupy
    import numpy as np
    import torch

    return tuple(
        cupy.from_dlpack(a.detach())
        if isinstance(a, torch.Tensor)
        else np.int32(a)
        if isinstance(a, int) and -(2**31) <= a < 2**31
        else np.int64(a)
        if isinstance(a, int)
        else np.float32(a)
        for a in args
    )


#: kcheck's own CUDA C headers: ``#include <kcheck/journal.cuh>`` (the GPU journal).
_INCLUDE = Path(__file__).resolve().parent.parent / "journal" / "include"


def _nvcc() -> str | None:
    found = shutil.which("nvcc")
    return found or ("/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else None)


def _cache_dir() -> Path:
    root = os.environ.get("KCHECK_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "kcheck")
    path = Path(root, "cuda")
    path.mkdir(parents=True, exist_ok=True)
    return path


@cache
def _nvcc_version(nvcc: str) -> str:
    return subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout


def compile_cubin(source: str, options: Sequence[str], arch: int) -> Path:
    """nvcc ``source`` to a cubin for sm_``arch`` (cached by source, options, architecture and nvcc's version)."""
    nvcc = _nvcc()
    if nvcc is None:
        raise RuntimeError("nvcc not found on PATH or in /usr/local/cuda/bin")
    flags = [f"-arch=sm_{arch}", "-cubin", "-lineinfo", f"-I{_INCLUDE}", *options]
    headers = "".join(p.read_text() for p in sorted(_INCLUDE.rglob("*.cuh")))  # kcheck's headers change the cubin
    key = hashlib.sha256("\0".join([source, *flags, _nvcc_version(nvcc), headers]).encode()).hexdigest()[:24]
    cubin = _cache_dir() / f"{key}.cubin"
    if cubin.exists():
        return cubin
    with tempfile.TemporaryDirectory(prefix="kcheck-nvcc-") as tmp:
        src, out = Path(tmp, "kernel.cu"), Path(tmp, "kernel.cubin")
        src.write_text(source)
        proc = subprocess.run([nvcc, *flags, "-o", str(out), str(src)], capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"nvcc failed for sm_{arch}:\n{(proc.stdout + proc.stderr).strip()}")
        os.replace(out, cubin)  # atomic: a concurrent process sees the whole file or none
    return cubin


@cache
def kernel(source: str, name: str, options: tuple[str, ...] = ()) -> Any:
    """The CuPy function for ``name`` in ``source``, compiled for this GPU (nvcc; CuPy's NVRTC if nvcc is missing)."""
    import cupy

    arch = int(cupy.cuda.Device().compute_capability)  # "90" on an H100/H200
    if _nvcc() is None:
        warnings.warn(
            "nvcc not found: compiling with CuPy's NVRTC, which forces -ftz=true (subnormals flushed); results on "
            "the 'tiny' pattern may differ from an nvcc build",
            stacklevel=2,
        )
        return cupy.RawKernel(source, name, options=("-lineinfo", f"-I{_INCLUDE}", *options))
    return cupy.RawModule(path=str(compile_cubin(source, options, arch))).get_function(name)


def launch(source: str, name: str, grid: tuple[int, ...], block: tuple[int, ...], *args: Any) -> None:
    """Launch ``name`` from ``source`` once (tests' planted-bug kernels); source lines map to the caller's file."""
    located = _with_line_directive(source, sys._getframe(1).f_code.co_filename)
    kernel(located, name)(grid, block, _convert(args))


def cuda_resources(source: str, arch: int = 90, name: str = "kernel.cu", options: Sequence[str] = ()) -> list[Any]:
    """Compile CUDA C ``source`` for sm_``arch`` with ``nvcc -Xptxas -v`` (no GPU needed) and return the resources of
    every entry function (mangled names as ptxas prints them)."""

    nvcc = _nvcc() or "nvcc"
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, name)
        with open(path, "w") as fh:
            fh.write(source)
        out = subprocess.run([nvcc, f"-arch=sm_{arch}", "-Xptxas", "-v", "-cubin", f"-I{_INCLUDE}", *options, "-o",
                              os.path.join(tmp, "k.cubin"), path], capture_output=True, text=True)
    if out.returncode != 0:
        tail = (out.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"nvcc failed for sm_{arch}: {tail}")
    found = parse_ptxas(out.stdout + out.stderr)
    for r in found:
        r.source = "nvcc -Xptxas -v"
    return found


def cuda_kernels(fn: Any) -> list[CudaKernel]:
    """The CudaKernels ``fn`` is or launches (found in its globals and closure, like Triton launchers)."""
    return [k for k in referenced(fn) if isinstance(k, CudaKernel)]


class CudaBackend(Backend):
    """CUDA C kernels (``CudaKernel``): run on a GPU; without one, compiled for sm_90 and checked statically."""

    name = "cuda"

    def kernels(self, fn: Any) -> list[Any]:
        return cuda_kernels(fn)

    def cannot_run(self, device: DeviceInfo) -> str | None:
        if device.is_gpu:
            return None
        return "CUDA C kernels run on a GPU only; here their source is compiled for sm_90 and checked"

    def resources(self, kernel: Any, launch: Callable[[], Any], arch: int) -> list[Any]:
        return [r for k in cuda_kernels(kernel) for r in k.resources(arch)]

    def kernel_names(self, fn: Any) -> set[str]:
        return {k.name for k in cuda_kernels(fn)}

    def shares_memory(self, fn: Any) -> bool:
        return any("__shared__" in k.source for k in cuda_kernels(fn))


register(CudaBackend())
