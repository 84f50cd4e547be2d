"""The static checks of the file that defines a Spec (kept apart: lint imports no torch)."""

from __future__ import annotations

from typing import Any

from .._spec import Spec


def lint_spec(spec: Spec) -> list[Any]:
    from ..lint import lint_path
    from ..run._isolate import locate

    ref = locate(spec)
    if ref is None:
        return []
    try:
        found = [f for f in lint_path(ref.path) if f.kind != "unparsable"]
    except Exception:  # a linter fault must not cost the diagnosis
        return []
    names = _kernel_names(spec)
    # only the kernels this Spec launches: another kernel's finding in the same file is not this Spec's evidence
    # (a Spec that launches none of them, a torch function, has only the findings that name no kernel)
    return [f for f in found if f.kernel is None or f.kernel in names]


def _kernel_names(spec: Spec) -> set[str]:
    """Names of the Triton and CUDA C kernels the Spec's launcher reaches (globals, closure), else empty."""
    from ..backends import uses_cuda
    from ..backends._triton import triton_kernels

    return {k.name for k in uses_cuda(spec.kernel)} | {_raw_name(k) for k in triton_kernels(spec.kernel)}


def _raw_name(fn: object) -> str:
    """A Triton kernel's Python name, through autotuner/heuristics wrappers (``.fn``)."""
    while hasattr(fn, "fn"):
        fn = fn.fn  # type: ignore[attr-defined]
    return getattr(fn, "__name__", "?")
