"""Cases: which sizes, precisions, data and seeds a Spec is checked on, and their inputs."""

from ._inputs import CaseContext, index_range_problem, make_args, shape_of, upcast
from ._matrix import (
    CPU_MAX_ELEMENTS,
    SNAPSHOT_MAX_ELEMENTS,
    TIERS,
    Case,
    SkipKind,
    build_matrix,
    case_from_id,
    numel,
    skip_reason,
    tensor_shapes,
    work,
)
from ._patterns import PURPOSE
from ._sizes import fit

__all__ = ["CPU_MAX_ELEMENTS", "PURPOSE", "SNAPSHOT_MAX_ELEMENTS", "TIERS", "Case", "CaseContext", "SkipKind",
           "build_matrix", "case_from_id", "fit", "index_range_problem", "make_args", "numel", "shape_of",
           "skip_reason", "tensor_shapes", "upcast", "work"]
