"""Triton backend: detect Triton launchers, and know what Triton's interpreter computes wrongly.

On a machine without a GPU, kcheck runs Triton kernels in Triton's interpreter (``TRITON_INTERPRET=1``). Some of its
arithmetic differs from a GPU's: in triton 3.7.1 bf16 values are held as raw uint16, so
arithmetic on bf16 that the kernel did not convert first is wrong, and fp32 -> bf16 truncates. kcheck probes this
once per process with two tiny kernels, and a bf16 case that fails under a broken interpreter is reported as
*untrusted*, with the probe's figures, never blamed on the kernel. Likewise an error that shows a construct the
interpreter cannot run (``interpreter_limitation``).
"""

from __future__ import annotations

import contextlib
import inspect
import os
import traceback
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

from .._device import DeviceInfo, interpreter_active
from .._resources import Resources
from ..interpret import checked
from ._base import Backend, LaunchLog, referenced, register
from ._triton_compile import ptxas_resources


def _is_jit(obj: Any) -> bool:
    try:
        from triton.runtime.jit import JITFunction  # type: ignore[import-untyped]
    except Exception:  # triton missing or broken: nothing is a Triton kernel
        return False
    if isinstance(obj, JITFunction):
        return True
    return type(obj).__name__ in {"JITFunction", "InterpretedFunction", "Autotuner", "Heuristics"} and hasattr(
        obj, "fn")


def triton_kernels(fn: Any) -> list[Any]:
    """The Triton kernels ``fn`` (a launcher) launches: itself if it is one, else those its globals (the names its
    code uses) or its closure hold, walking into autograd Functions, ``nn.Module``s and the user's helper functions
    as ``referenced`` does."""
    if _is_jit(fn):
        return [fn]
    target = inspect.unwrap(fn) if callable(fn) else fn
    if _is_jit(target):
        return [target]
    return [k for k in referenced(fn) if k is not fn and _is_jit(k)]


def uses_triton(fn: Any) -> bool:
    """Whether ``fn`` (a launcher) launches a Triton kernel: it is one, or its globals or closure hold one."""
    return bool(triton_kernels(fn))


def raw_kernel_problem(fn: Any) -> str | None:
    """A raw @triton.jit function given as ``kernel=``: it needs a grid, so a launcher must wrap it."""
    if _is_jit(fn):
        return ("a @triton.jit function needs a grid: pass a launcher, e.g. "
                "`def add(x, y, out): add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), BLOCK=1024)`")
    return None


@lru_cache(maxsize=1)
def interpreter_bf16_problem() -> str | None:
    """Probe the interpreter's bf16 arithmetic; a sentence describing what is wrong, or None if it is right."""
    if not interpreter_active():
        return None
    try:
        import torch
        import triton  # type: ignore[import-untyped]
        import triton.language as tl  # type: ignore[import-untyped]

        @triton.jit
        def _sum_bf16(x_ptr, out_ptr, N: tl.constexpr):
            x = tl.load(x_ptr + tl.arange(0, N))
            tl.store(out_ptr, tl.sum(x, axis=0).to(tl.float32))

        @triton.jit
        def _round_bf16(x_ptr, out_ptr):
            tl.store(out_ptr, tl.load(x_ptr).to(tl.bfloat16))

        n = 4096
        ones = torch.ones(n, dtype=torch.bfloat16)
        total = torch.zeros(1, dtype=torch.float32)
        _sum_bf16[(1,)](ones, total, N=n)
        value = torch.tensor([1.0 + 2**-8 + 2**-10], dtype=torch.float32)  # nearest bf16 is 1 + 2**-7
        rounded = torch.zeros(1, dtype=torch.bfloat16)
        _round_bf16[(1,)](value, rounded)
        problems = []
        if float(total) != n:
            problems.append(f"the sum of {n} bf16 ones came out {float(total):g}")
        if float(rounded) != float(value.to(torch.bfloat16)):
            problems.append(f"fp32 {float(value):.6f} -> bf16 gave {float(rounded):.6f}, not "
                            f"{float(value.to(torch.bfloat16)):.6f}")
        if not problems:
            return None
        return f"Triton {triton.__version__}'s interpreter computes bf16 wrongly ({'; '.join(problems)})"
    except Exception as exc:  # a probe that cannot run proves nothing either way: say so
        return f"the interpreter's bf16 probe could not run ({type(exc).__name__}: {exc})"


def _package_dir(file: str) -> str:
    """The folder of a package's ``__init__.py``, with a trailing separator."""
    return os.path.dirname(os.path.abspath(file)) + os.sep


def _outside(filename: str, dirs: tuple[str, ...]) -> bool:
    return not os.path.abspath(filename).startswith(dirs)


def kernel_frame(exc: BaseException) -> str | None:
    """``file:line`` of the innermost traceback frame of ``exc`` outside triton, torch and kcheck (the kernel's own
    code, or its launcher's), or None."""
    import sys

    import torch


    kcheck_init = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "__init__.py")
    dirs = [_package_dir(torch.__file__), _package_dir(kcheck_init)]
    triton_file = getattr(sys.modules.get("triton"), "__file__", None)  # loaded when a Triton kernel raised
    if isinstance(triton_file, str):
        dirs.append(_package_dir(triton_file))
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if _outside(f.filename, tuple(dirs))]
    return f"{frames[-1].filename}:{frames[-1].lineno}" if frames else None


def _cause(exc: BaseException) -> BaseException:
    """The error a kernel raised inside the interpreter: triton wraps it in an ``InterpreterError`` (its cause)."""
    while type(exc).__name__ == "InterpreterError" and exc.__cause__ is not None:
        exc = exc.__cause__
    return exc


def _uses_extra_libdevice(exc: BaseException) -> bool:
    """Whether a frame of ``exc``'s traceback outside triton runs code that holds triton's libdevice (whose
    functions are stubs that return None in the interpreter)."""
    tb = exc.__traceback__
    while tb is not None:
        for value in tb.tb_frame.f_globals.values():
            name = getattr(value, "__name__", "") if inspect.ismodule(value) else getattr(value, "__module__", "")
            if isinstance(name, str) and name.startswith("triton.language.extra"):
                return True
        tb = tb.tb_next
    return False


def interpreter_limitation(exc: BaseException) -> str | None:
    """Why ``exc``, raised while Triton's interpreter ran a kernel, shows a limit of the interpreter rather than a
    fault of the kernel, or None (the kernel's fault, as on a GPU).

    Three kinds are recognized: an error raised in the interpreter's own implementation (``triton/runtime``: a
    construct it does not implement, such as ``extern_elementwise`` or inline assembly); an attribute of
    ``tl.tensor`` asked of a scalar argument (the interpreter passes a float argument as a Python float, a GPU as a
    ``tl.tensor``: ``eps.to(tl.float32)``); and a None where a kernel that uses triton's libdevice expects a value
    (its functions are stubs that return None in the interpreter). Errors from ``triton.language``'s own checks
    (a non-power-of-2 ``tl.arange``, mismatched ``tl.dot`` shapes) are the kernel's: the GPU compiler runs the
    same checks.
    """
    if not interpreter_active() or type(exc).__name__ != "InterpreterError":
        return None
    try:
        import triton  # type: ignore[import-untyped]
        import triton.language as tl  # type: ignore[import-untyped]
    except Exception:
        return None
    cause = _cause(exc)
    frames = [f.filename for f in traceback.extract_tb(cause.__traceback__)]
    runtime = _package_dir(triton.__file__) + "runtime" + os.sep
    what = None
    if frames and not _outside(frames[-1], (runtime,)):
        what = "Triton's interpreter does not implement a construct the kernel uses"
    elif isinstance(cause, AttributeError) and isinstance(getattr(cause, "obj", None), (bool, int, float)) and (
            hasattr(tl.tensor, str(getattr(cause, "name", "")))):
        obj = getattr(cause, "obj", None)
        what = (f"a scalar argument is a Python {type(obj).__name__} in Triton's interpreter but a tl.tensor on a "
                f"GPU, where .{getattr(cause, 'name', '')} exists")
    elif ("None" in str(cause)) and _uses_extra_libdevice(cause):
        what = "the kernel uses triton's libdevice, whose functions return None in Triton's interpreter"
    if what is None:
        return None
    where = kernel_frame(cause)
    text = str(cause).strip().splitlines()
    at = f" at {where}" if where else ""
    return (f"{what} (triton {triton.__version__}): {type(cause).__name__}: {text[0] if text else ''}{at}; "
            "a GPU compiles it")


_DTYPES = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16", "float64": "fp64", "int8": "i8", "int16": "i16",
           "int32": "i32", "int64": "i64", "uint8": "u8", "bool": "i1", "float8_e4m3fn": "fp8e4nv",
           "float8_e5m2": "fp8e5"}


def capture_launches(launch: Any) -> list[tuple[Any, dict[str, Any], dict[str, Any]]]:
    """Run ``launch()`` in Triton's interpreter and return every kernel it launched: (kernel function, arguments by
    name, launch options such as num_warps)."""
    from triton.runtime import interpreter  # type: ignore[import-untyped]

    seen: list[tuple[Any, dict[str, Any], dict[str, Any]]] = []
    original = interpreter.InterpretedFunction.run

    def run(self: Any, *args: Any, grid: Any, warmup: Any, **kwargs: Any) -> Any:
        options: dict[str, Any] = {k: kwargs[k] for k in ("num_warps", "num_stages", "num_ctas") if k in kwargs}
        named = dict(zip(self.arg_names, args, strict=False))
        named.update({k: v for k, v in kwargs.items() if k in self.arg_names})
        seen.append((self.fn, named, options))
        return original(self, *args, grid=grid, warmup=warmup, **kwargs)

    interpreter.InterpretedFunction.run = run
    try:
        launch()
    finally:
        interpreter.InterpretedFunction.run = original
    return seen


def gpu_launch_resources(launch: Any) -> list[Any]:
    """Run ``launch()`` on the GPU and return the resources of every Triton kernel it compiled and launched (ptxas
    ``-v`` on the PTX Triton built for this GPU), one per distinct compiled kernel."""
    from triton.runtime.jit import JITFunction  # type: ignore[import-untyped]


    compiled: dict[tuple[str, str], Any] = {}
    original = JITFunction.run

    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        kernel = original(self, *args, **kwargs)
        if kernel is not None and hasattr(kernel, "asm"):
            compiled.setdefault((self.__name__, str(getattr(kernel, "hash", id(kernel)))), kernel)
        return kernel

    JITFunction.run = run
    try:
        launch()
    finally:
        JITFunction.run = original
    out = []
    for (name, _), kernel in compiled.items():
        target = getattr(kernel.metadata, "target", None)
        arch = int(getattr(target, "arch", 90) or 90)
        res = ptxas_resources(kernel, name, arch)
        if res is not None:
            out.append(res)
    return out


def signature_of(fn: Any, args: dict[str, Any]) -> tuple[dict[str, str], dict[str, Any]]:
    """Triton's signature and constexpr values for one launch, from the arguments it was given."""
    import inspect

    params = inspect.signature(getattr(fn, "fn", fn)).parameters
    annotations = getattr(getattr(fn, "fn", fn), "__annotations__", {})
    signature: dict[str, str] = {}
    constexprs: dict[str, Any] = {}
    for name in params:
        value: Any = args.get(name)
        if "constexpr" in str(annotations.get(name, "")):
            signature[name], constexprs[name] = "constexpr", value
        elif hasattr(value, "dtype") and hasattr(value, "data_ptr"):
            signature[name] = "*" + _DTYPES[str(value.dtype).removeprefix("torch.")]
        elif isinstance(value, bool):
            signature[name] = "i1"
        elif isinstance(value, int):
            signature[name] = "i32" if -(2**31) <= value < 2**31 else "i64"
        elif isinstance(value, float):
            signature[name] = "fp32"
        else:
            signature[name], constexprs[name] = "constexpr", value
    return signature, constexprs


def compile_resources(fn: Any, args: dict[str, Any], options: dict[str, Any], arch: int = 90) -> Any:
    """Compile one launch of a Triton kernel for sm_``arch`` without a GPU and read ptxas's resource report.

    Runs in a fresh process without ``TRITON_INTERPRET`` (the interpreter patches ``triton.language`` and the
    compiler cannot run beside it): the kernel's module is imported there, compiled with Triton's own toolchain,
    and Triton's ptxas reports registers, spills and stack (``-v``); shared memory is the compiled kernel's.
    """
    import inspect
    import json
    import os
    import subprocess
    import sys


    raw = getattr(fn, "fn", fn)
    signature, constexprs = signature_of(fn, args)
    job = {"file": inspect.getsourcefile(raw), "name": raw.__name__, "signature": signature,
           "constexprs": constexprs, "options": options, "arch": arch}
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    out = subprocess.run([sys.executable, "-m", "kcheck.backends._triton_compile", json.dumps(job)], env=env,
                         capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        tail = (out.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"compiling {raw.__name__} for sm_{arch} failed: {tail}")
    return Resources(**json.loads(out.stdout.strip().splitlines()[-1]))


def _raw_name(fn: Any) -> str:
    """A Triton kernel's Python name, through autotuner/heuristics wrappers (``.fn``)."""
    while hasattr(fn, "fn"):
        fn = fn.fn
    return getattr(fn, "__name__", "?")


def _grid_of(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[int, ...]:
    """The grid of one ``JITFunction.run`` call: a tuple, or a function of the launch's arguments by name."""
    grid: Any = kwargs.get("grid")
    if callable(grid):
        grid = grid({**dict(zip(getattr(fn, "arg_names", ()), args, strict=False)), **kwargs})
    return tuple(grid)


class TritonBackend(Backend):
    """Triton launchers: interpreted on a machine without a GPU, where every access is checked and races found."""

    name = "triton"

    def kernels(self, fn: Any) -> list[Any]:
        return triton_kernels(fn)

    def prepare_environment(self, gpu: bool) -> None:
        # read when @triton.jit decorates: before the user's modules import triton
        if not gpu and "TRITON_INTERPRET" not in os.environ:
            os.environ["TRITON_INTERPRET"] = "1"

    def preload(self, gpu: bool) -> None:
        # the driver's first use builds or loads its C helpers (a compile on a cold cache)
        if gpu and os.environ.get("TRITON_INTERPRET", "0") in ("", "0"):
            from triton.runtime import driver

            driver.active.get_current_device()

    def cannot_run(self, device: DeviceInfo) -> str | None:
        if device.is_gpu or device.interpreter:
            return None
        return "Triton kernels need a GPU or Triton's interpreter (TRITON_INTERPRET=1 before triton is imported)"

    def interpreted(self, device: DeviceInfo) -> bool:
        return device.interpreter

    def spec_problem(self, kernel: Any) -> str | None:
        return raw_kernel_problem(kernel)

    def untrusted_precision(self, precision: str, device: DeviceInfo) -> str | None:
        if device.interpreter and precision == "bf16":
            return interpreter_bf16_problem()
        return None

    def untrusted_error(self, exc: BaseException, device: DeviceInfo) -> str | None:
        return interpreter_limitation(exc) if device.interpreter else None

    @contextlib.contextmanager
    def launches(self, device: DeviceInfo) -> Iterator[LaunchLog]:
        log = LaunchLog()
        if device.interpreter or not device.is_gpu:  # the interpreter takes any grid: no CUDA limit to pass
            yield log
            return
        try:
            from triton.runtime.jit import JITFunction  # type: ignore[import-untyped]
        except Exception:
            yield log
            return
        original = JITFunction.run

        def run(self: Any, *args: Any, **kwargs: Any) -> Any:
            log.launches.append((_raw_name(self), lambda: _grid_of(self, args, kwargs)))  # evaluated on an error
            return original(self, *args, **kwargs)

        JITFunction.run = run
        try:
            yield log
        finally:
            JITFunction.run = original

    def resources(self, kernel: Any, launch: Callable[[], Any], arch: int) -> list[Any]:

        if not interpreter_active():
            import torch

            return gpu_launch_resources(launch) if torch.cuda.is_available() else []
        seen: dict[tuple[str, str], Any] = {}
        with checked(races=False):  # every access checked and a stray one masked off: the launch cannot corrupt
            launches = capture_launches(launch)
        for fn, named, options in launches:
            key = (getattr(fn, "__name__", "?"), repr(sorted(options.items())))
            if key not in seen:
                seen[key] = compile_resources(fn, named, options, arch)
        return list(seen.values())

    def kernel_names(self, fn: Any) -> set[str]:
        return {_raw_name(k) for k in triton_kernels(fn)}


register(TritonBackend())
