"""Properties: relations the kernel's outputs must satisfy, checked with the kernel alone.

They catch what value tests miss, notably index errors that give a plausible result.
Ready-made: ``linear``, ``zero_in_zero_out``, ``idempotent``, ``shift_invariant``; user-defined:
``Property("name", fn)`` where ``fn(ctx)`` uses ``ctx.inputs``, ``ctx.run(*args)`` and ``ctx.assert_close(a, b)``
and raises ``AssertionError`` (or returns False or a message) when the property does not hold.

Each property runs on the nominal and the odd (129) shape, in the Spec's first precision, with randn data.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from ._errors import SpecError
from .compare import mismatch_mask, rms, rms_of_inputs, tolerance_for


@dataclass
class PropertyContext:
    """What a property sees: the case's fresh inputs, a way to run the kernel, and a tolerant comparison."""

    inputs: list[Any]
    run: Callable[..., tuple[torch.Tensor, ...]]
    precision: str
    reduction: int
    generator: torch.Generator

    def assert_close(self, actual: torch.Tensor, expected: torch.Tensor, what: str = "outputs") -> None:
        """Raise AssertionError unless ``actual`` is within the case's tolerance of ``expected``."""
        if actual.shape != expected.shape:
            raise AssertionError(f"{what}: shapes differ, {list(actual.shape)} vs {list(expected.shape)}")
        a = actual.detach().to(torch.float64)
        e = expected.detach().to(device=a.device, dtype=torch.float64)
        tol = tolerance_for(self.precision, actual.dtype, self.reduction, rms(e),
                            input_scale=lambda: rms_of_inputs(self.inputs))
        bad = mismatch_mask(a, e, tol)
        if bool(bad.any()):
            n = int(bad.sum())
            diff = (a - e).abs().nan_to_num(nan=float("inf"))
            raise AssertionError(f"{what}: {n} of {bad.numel()} elements differ; greatest difference "
                                 f"{float(diff.max()):.3g} (up to {tol.atol:.2g} + {tol.rtol:.2g}*|expected| allowed)")

    def like(self, x: torch.Tensor) -> torch.Tensor:
        """A fresh randn tensor shaped, typed and laid out like ``x``."""
        return torch.randn(x.shape, generator=self.generator, device=x.device, dtype=torch.float32).to(x.dtype)


class Property:
    """A named relation; ``fn(ctx)`` raises AssertionError (or returns False / a message string) when it fails."""

    def __init__(self, name: str, fn: Callable[[PropertyContext], Any]) -> None:
        if not isinstance(name, str) or not name:
            raise SpecError("Property(name)", name, "give a short name, e.g. 'row sums are 1'")
        if not callable(fn):
            raise SpecError("Property(fn)", fn, "give a callable taking a kcheck PropertyContext")
        self.name, self.fn = name, fn

    def __repr__(self) -> str:
        return f"Property({self.name!r})"

    def check(self, ctx: PropertyContext) -> str | None:
        """None when the property holds, else why not."""
        try:
            verdict = self.fn(ctx)
        except AssertionError as exc:
            return str(exc) or "assertion failed"
        if verdict is False:
            return "returned False"
        if isinstance(verdict, str):
            return verdict
        return None


def _tensor_arg(ctx: PropertyContext, arg: int, name: str) -> torch.Tensor:
    if not 0 <= arg < len(ctx.inputs) or not isinstance(ctx.inputs[arg], torch.Tensor):
        raise AssertionError(f"{name}: input {arg} is not a tensor (arg={arg})")
    return ctx.inputs[arg]


def _replace(args: Sequence[Any], arg: int, value: Any) -> list[Any]:
    out = list(args)
    out[arg] = value
    return out


def linear(*args: int) -> Property:
    """kernel(x1 + x2) == kernel(x1) + kernel(x2), jointly in the inputs ``args`` (default: every floating tensor
    input), the others held fixed. ``linear(0)`` for a GEMM is linear in A alone."""

    def fn(ctx: PropertyContext) -> None:
        which = list(args) or [i for i, x in enumerate(ctx.inputs)
                               if isinstance(x, torch.Tensor) and x.is_floating_point()]
        first, second, both = list(ctx.inputs), list(ctx.inputs), list(ctx.inputs)
        for i in which:
            x1 = _tensor_arg(ctx, i, "linear")
            x2 = ctx.like(x1)
            first[i], second[i], both[i] = x1, x2, (x1.double() + x2.double()).to(x1.dtype)
        outs_both, outs_1, outs_2 = ctx.run(*both), ctx.run(*first), ctx.run(*second)
        for k, (s, a, b) in enumerate(zip(outs_both, outs_1, outs_2, strict=True)):
            ctx.assert_close(s, a.double() + b.double(), f"output {k}: f(x1+x2) vs f(x1)+f(x2)")

    where = ", ".join(map(str, args)) if args else "every floating input"
    return Property(f"linear in {where}", fn)


def zero_in_zero_out(arg: int = 0) -> Property:
    """All-zero input ``arg`` gives exactly zero outputs."""

    def fn(ctx: PropertyContext) -> None:
        x = _tensor_arg(ctx, arg, "zero_in_zero_out")
        for i, out in enumerate(ctx.run(*_replace(ctx.inputs, arg, torch.zeros_like(x)))):
            nonzero = int((out != 0).sum())
            if nonzero:
                raise AssertionError(f"output {i}: {nonzero} of {out.numel()} elements are not 0 for a zero input")

    return Property(f"zero in, zero out (input {arg})", fn)


def idempotent(arg: int = 0) -> Property:
    """kernel(kernel(x)) == kernel(x), feeding output 0 back as input ``arg`` (e.g. relu)."""

    def fn(ctx: PropertyContext) -> None:
        once = ctx.run(*ctx.inputs)[0]
        twice = ctx.run(*_replace(ctx.inputs, arg, once.clone()))[0]
        ctx.assert_close(twice, once.double(), "f(f(x)) vs f(x)")

    return Property(f"idempotent (input {arg})", fn)


def shift_invariant(arg: int = 0, shift: float = 3.0) -> Property:
    """kernel(x + c) == kernel(x), as softmax(x + c) == softmax(x)."""

    def fn(ctx: PropertyContext) -> None:
        x = _tensor_arg(ctx, arg, "shift_invariant")
        shifted = (x.double() + shift).to(x.dtype)
        base = ctx.run(*_replace(ctx.inputs, arg, (shifted.double() - shift).to(x.dtype)))
        moved = ctx.run(*_replace(ctx.inputs, arg, shifted))
        for i, (m, b) in enumerate(zip(moved, base, strict=True)):
            ctx.assert_close(m, b.double(), f"output {i}: f(x + {shift:g}) vs f(x)")

    return Property(f"shift invariant by {shift:g} (input {arg})", fn)
