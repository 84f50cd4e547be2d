"""Cases: which sizes, precisions, data and seeds a Spec is checked on, and their inputs (M3, M4)."""

from ._inputs import CaseContext, index_range_problem, make_args, upcast
from ._matrix import CPU_MAX_ELEMENTS, TIERS, Case, SkipKind, build_matrix, work
from ._patterns import PURPOSE

__all__ = ["CPU_MAX_ELEMENTS", "PURPOSE", "TIERS", "Case", "CaseContext", "SkipKind", "build_matrix",
           "index_range_problem", "make_args", "upcast", "work"]
