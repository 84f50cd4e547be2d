"""Small Triton kernels, buggy and correct, for kcheck.interpret's tests (tests/test_interpret.py).

Each buggy kernel marks its bad lines with ``# BUG``; the tests find those lines by that marker. The kernels run in
Triton's interpreter when ``TRITON_INTERPRET=1`` was set before they were imported (kcheck's pytest plugin sets it
on a machine without a GPU).
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType


def bug_lines(module: ModuleType, marker: str = "# BUG") -> list[int]:
    """Line numbers (1-based) of the lines marked ``# BUG`` (or ``marker``) in a module's file."""
    assert module.__file__ is not None
    lines = Path(module.__file__).read_text().splitlines()
    return [i + 1 for i, line in enumerate(lines) if marker in line]
