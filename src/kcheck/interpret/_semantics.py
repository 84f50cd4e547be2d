"""Where Triton's interpreter computes otherwise than a GPU, and kcheck makes it compute as the GPU does.

``tl.maximum`` and ``tl.minimum`` (default ``propagate_nan=NONE``) compile to PTX ``max.f32``/``min.f32``, which
return the operand that is not NaN (IEEE 754 maxNum); ``tl.clamp`` likewise. Triton's interpreter computes all of
them with ``np.maximum``/``np.minimum``/``np.clip``, which propagate NaN. A kernel that relies on, or is broken by,
the GPU's behaviour (``max(norm, eps)`` that turns a NaN row into a finite one) then passes on the CPU and fails on a
GPU, or the reverse. Inside ``gpu_semantics()`` the interpreter takes NumPy's ``fmax``/``fmin`` for those calls,
as PTX does; ``propagate_nan=ALL`` keeps propagating NaN, as it does on a GPU.

Source: PTX ISA, "Floating Point Instructions: max / min" (NaN inputs: the result is the non-NaN operand), and
``triton/language/semantic.py`` (``PropagateNan.NONE`` -> ``create_maxnumf``/``create_minnumf``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np


def _clamp(builder: Any, arg: Any, lo: Any, hi: Any, propagate_nans: Any) -> Any:
    import triton.language as tl  # type: ignore[import-untyped]

    if propagate_nans == tl.PropagateNan.ALL:
        return builder.ternary_op(arg, lo, hi, np.clip)
    return builder.ternary_op(arg, lo, hi, lambda x, a, b: np.fmin(np.fmax(x, a), b))


#: method of the interpreter's builder -> what a GPU computes
_GPU = {
    "create_maxnumf": lambda self, lhs, rhs: self.binary_op(lhs, rhs, np.fmax),
    "create_minnumf": lambda self, lhs, rhs: self.binary_op(lhs, rhs, np.fmin),
    "create_clampf": _clamp,
}


@contextlib.contextmanager
def gpu_semantics() -> Iterator[None]:
    """Within the block, the interpreter's NaN handling of maximum, minimum and clamp is a GPU's (see above).
    Nothing is patched where the builder lacks these methods (another Triton)."""
    try:
        from triton.runtime.interpreter import InterpreterBuilder  # type: ignore[import-untyped]
    except Exception:  # no triton: nothing to make agree
        yield
        return
    saved = {name: InterpreterBuilder.__dict__[name] for name in _GPU if name in InterpreterBuilder.__dict__}
    if len(saved) != len(_GPU):
        yield
        return
    for name, fn in _GPU.items():
        setattr(InterpreterBuilder, name, fn)
    try:
        yield
    finally:
        for name, fn in saved.items():
            setattr(InterpreterBuilder, name, fn)
