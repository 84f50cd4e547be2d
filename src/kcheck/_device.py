"""What the machine can do: which device cases run on, its memory, and whether Triton runs interpreted."""

from __future__ import annotations

import gc
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import torch

from ._errors import EnvironmentProblem


@dataclass(frozen=True)
class DeviceInfo:
    device: str  # "cuda" or "cpu"
    name: str
    total_bytes: int
    free_bytes: int
    capability: tuple[int, int] | None  # CUDA compute capability, None on the CPU
    sm_count: int  # multiprocessors; 132 assumed on the CPU (an H100/H200) for wave-quantization sizes
    interpreter: bool  # Triton kernels run in Triton's interpreter (TRITON_INTERPRET=1)

    @property
    def is_gpu(self) -> bool:
        return self.device == "cuda"

    def describe(self) -> str:
        mode = ", Triton interpreter" if self.interpreter else ""
        return f"{self.name} ({self.total_bytes / 2**30:.0f} GiB{mode})"


def release_memory() -> None:
    """Give back the device memory earlier cases left behind: the caching allocator's idle blocks and, when tensors
    are still allocated after that (kept alive only by reference cycles: an autograd graph through a ``Function``'s
    context, a traceback's frames), what a full collection frees. Called around each past-2**31 case, so that case
    finds the memory the device has, and other workers sharing the GPU get back what this process no longer uses.
    The collection is skipped when nothing is held (0.15 s on the H200, paid per past-2**31 case)."""
    if not (torch.cuda.is_available() and torch.cuda.is_initialized()):
        gc.collect()
        return
    try:
        if torch.cuda.memory_allocated() > KEEP_CACHED_BYTES:
            gc.collect()
        torch.cuda.empty_cache()
    except RuntimeError:  # a broken context (the case's sticky CUDA error): the worker reports it, not this
        return


#: Device memory a process may keep cached between cases. Above it, a case's end gives the cache back, so workers
#: sharing one GPU do not each hold the peak of the largest case they ran (16 workers x 10 GiB starved a
#: past-2**31 case on an H200).
KEEP_CACHED_BYTES = 1 << 30

_OOM: tuple[type[BaseException], ...] = tuple(
    {getattr(torch, "OutOfMemoryError", torch.cuda.OutOfMemoryError), torch.cuda.OutOfMemoryError})


def is_out_of_memory(exc: BaseException | None) -> bool:
    """Whether ``exc`` (or an exception it was raised from) is the device running out of memory."""
    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, _OOM):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


def release_if_holding() -> None:
    """``release_memory()`` when this process keeps more than ``KEEP_CACHED_BYTES`` of device memory cached."""
    try:
        holding = torch.cuda.is_available() and torch.cuda.is_initialized() and \
            torch.cuda.memory_reserved() > KEEP_CACHED_BYTES
    except RuntimeError:  # a broken context: see release_memory
        return
    if holding:
        release_memory()


def held_by_others() -> int:
    """Bytes of the current GPU that other processes hold (what is neither free nor reserved by this process's
    allocator, less 1 GiB for this process's own context); 0 without a GPU or when it cannot be told."""
    try:
        if not (torch.cuda.is_available() and torch.cuda.is_initialized()):
            return 0
        free, total = torch.cuda.mem_get_info()
        return max(0, total - free - torch.cuda.memory_reserved() - (1 << 30))
    except RuntimeError:
        return 0


def interpreter_active() -> bool:
    return os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")


@lru_cache(maxsize=1)
def _cpu_memory() -> tuple[int, int]:
    page = os.sysconf("SC_PAGE_SIZE")
    return os.sysconf("SC_PHYS_PAGES") * page, os.sysconf("SC_AVPHYS_PAGES") * page


def detect() -> DeviceInfo:
    """Describe the device kcheck will use: the current CUDA device if there is one, else the CPU."""
    if torch.cuda.is_available():
        try:
            idx = torch.cuda.current_device()
            props = torch.cuda.get_device_properties(idx)
            free, total = torch.cuda.mem_get_info(idx)
        except RuntimeError as exc:  # torch.AcceleratorError: a sticky error left by a kernel this process launched
            raise EnvironmentProblem(
                f"this process's CUDA context is broken ({str(exc).splitlines()[0]}): a kernel launched in this "
                "process before kcheck was called trapped or accessed an illegal address, and CUDA keeps that "
                "error until the process ends. Call kcheck from a fresh process (kcheck runs your kernels in "
                "workers of its own, so its own calls do not break it)") from exc
        return DeviceInfo("cuda", props.name, total, free, (props.major, props.minor),
                          props.multi_processor_count, interpreter_active())
    return cpu_device(interpreter_active())


def cpu_device(interpreter: bool) -> DeviceInfo:
    """This machine's CPU as kcheck's device; ``interpreter``: Triton kernels run in Triton's interpreter."""
    total, free = _cpu_memory()
    return DeviceInfo("cpu", "CPU", total, free, None, 132, interpreter)


#: What each kernel framework sets before the user's modules import it (``backends`` registers one per backend).
_PREPARE: list[Callable[[bool], None]] = []


def on_prepare(fn: Callable[[bool], None]) -> None:
    """Register ``fn(gpu)``, run by ``enable_interpreter_if_no_gpu`` (backends register theirs)."""
    _PREPARE.append(fn)


def enable_interpreter_if_no_gpu() -> bool:
    """Prepare every kernel framework for this machine before user modules import it: without a GPU, Triton's
    interpreter (TRITON_INTERPRET=1) and the other frameworks' simulators. Returns whether Triton's interpreter
    is on.

    Triton reads the variable when ``@triton.jit`` decorates, so this must run before the kernel's module is
    imported: the CLI and the pytest plugin call it first thing.
    """
    gpu = torch.cuda.is_available()
    for fn in _PREPARE:
        fn(gpu)
    return interpreter_active()
