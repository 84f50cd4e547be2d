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
        return [f for f in lint_path(ref.path) if f.kind != "unparsable"]
    except Exception:  # a linter fault must not cost the diagnosis
        return []
