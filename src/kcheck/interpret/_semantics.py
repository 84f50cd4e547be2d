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

A loop whose bound is a kernel argument (``for k in range(0, K, BLOCK)``) compiles on a GPU. Triton 3.6's
interpreter takes the bound's ``__index__`` as ``int(handle.data)`` of a one-element 1-D array, which NumPy 2.4
refuses ("only 0-dimensional arrays can be converted to Python scalars"), so every such kernel raised there. Inside
``scalar_index()`` that conversion takes the one element (as Triton 3.7's ``int(handle.data.squeeze())`` does).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

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


def _one_element_index(index: Callable[[Any], int]) -> Callable[[Any], int]:
    def __index__(self: Any) -> int:
        try:
            return index(self)
        except TypeError:  # a one-element 1-D array, which NumPy 2.4 no longer converts to a scalar
            data = np.asarray(self.handle.data)
            if data.size != 1:
                raise
            return int(data.reshape(()))

    return __index__


@contextlib.contextmanager
def scalar_index() -> Iterator[None]:
    """Within the block, the interpreter converts a one-element tensor (a loop bound passed as an argument) to an
    index whatever NumPy's version (see above). Nothing is patched where the interpreter lacks the function that
    sets ``__index__`` (another Triton)."""
    try:
        from triton.runtime import interpreter  # type: ignore[import-untyped]
    except Exception:
        yield
        return
    original = interpreter.__dict__.get("_patch_lang_tensor")
    if original is None:
        yield
        return

    def patch_lang_tensor(tensor: Any, *args: Any, **kwargs: Any) -> Any:
        out = original(tensor, *args, **kwargs)
        index = tensor.__dict__.get("__index__")
        if index is not None:
            scope = args[0] if args else kwargs.get("scope")
            fixed = _one_element_index(index)
            if scope is not None and hasattr(scope, "set_attr"):
                scope.set_attr(tensor, "__index__", fixed)  # restored with the interpreter's own patches
            else:
                tensor.__index__ = fixed
        return out

    interpreter._patch_lang_tensor = patch_lang_tensor
    try:
        yield
    finally:
        interpreter._patch_lang_tensor = original
