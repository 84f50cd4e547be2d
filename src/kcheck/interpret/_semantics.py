"""Where Triton's interpreter computes otherwise than a GPU, and kcheck makes it compute as the GPU does.

``tl.maximum`` and ``tl.minimum`` (default ``propagate_nan=NONE``) compile to PTX ``max.f32``/``min.f32``, which
return the operand that is not NaN (IEEE 754 maxNum). Triton's interpreter computes them with
``np.maximum``/``np.minimum``, which propagate NaN. A kernel that relies on, or is broken by,
the GPU's behaviour (``max(norm, eps)`` that turns a NaN row into a finite one) then passes on the CPU and fails on a
GPU, or the reverse. Inside ``gpu_semantics()`` the interpreter takes NumPy's ``fmax``/``fmin`` for those calls,
as PTX does; ``propagate_nan=ALL`` keeps propagating NaN, as it does on a GPU. ``tl.clamp`` is left as the
interpreter computes it: its documentation leaves a NaN ``x`` under ``propagate_nan=NONE`` unspecified.

Source: PTX ISA, "Floating Point Instructions: max / min" (NaN inputs: the result is the non-NaN operand), and
``triton/language/semantic.py`` (``PropagateNan.NONE`` -> ``create_maxnumf``/``create_minnumf``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numpy as np

#: method of the interpreter's builder -> what a GPU computes
_GPU = {
    "create_maxnumf": lambda self, lhs, rhs: self.binary_op(lhs, rhs, np.fmax),
    "create_minnumf": lambda self, lhs, rhs: self.binary_op(lhs, rhs, np.fmin),
}


@contextlib.contextmanager
def gpu_semantics() -> Iterator[None]:
    """Within the block, the interpreter's NaN handling of maximum and minimum is a GPU's (see above).
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
