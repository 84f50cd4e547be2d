"""Memory and race checks of Triton kernels in Triton's interpreter, without a GPU.

    with kcheck.interpret.checked(order="reversed") as report:
        add(x, y)                      # any code that launches Triton kernels in the interpreter
    assert report.ok, report.describe()

Findings are :class:`kcheck._findings.Finding` records (tool "interpreter"; kinds "out-of-bounds", "race-WW",
"race-RW"), shaped like compute-sanitizer's, so reports treat both alike.
"""

from ._checked import ORDERS, Benign, Report, checked
from ._compat import TESTED_VERSIONS, InterpreterMismatch, internals
from ._launch import Record, Region
from ._semantics import gpu_semantics, scalar_index

__all__ = ["ORDERS", "TESTED_VERSIONS", "Benign", "InterpreterMismatch", "Record", "Region", "Report", "checked",
           "gpu_semantics", "internals", "scalar_index"]
