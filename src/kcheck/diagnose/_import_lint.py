"""The static checks of the file that defines a Spec (kept apart: lint imports no torch)."""

from __future__ import annotations

from typing import Any

from .._discover import locate
from .._spec import Spec
from ..backends import backend_of
from ..lint import lint_path


def lint_spec(spec: Spec) -> list[Any]:

    ref = locate(spec)
    if ref is None:
        return []
    try:
        found = [f for f in lint_path(ref.path) if f.kind != "unparsable"]
    except Exception:  # a linter fault must not cost the diagnosis
        return []
    names = backend_of(spec.kernel).kernel_names(spec.kernel)
    # only the kernels this Spec launches: another kernel's finding in the same file is not this Spec's evidence
    # (a Spec that launches none of them, a torch function, has only the findings that name no kernel)
    return [f for f in found if f.kernel is None or f.kernel in names]
