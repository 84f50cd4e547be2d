"""Cases: which sizes, precisions, data and seeds a Spec is checked on, and their inputs."""

from ._context import CaseContext
from ._inputs import (
    call_kernel,
    call_reference,
    context,
    index_range_problem,
    make_args,
    output_buffers,
    shape_of,
    upcast,
)
from ._matrix import (
    CPU_MAX_ELEMENTS,
    SIZED_TO_MEMORY,
    SNAPSHOT_MAX_ELEMENTS,
    TIERS,
    Case,
    SkipKind,
    build_matrix,
    case_bytes,
    case_from_id,
    kernel_kwargs,
    numel,
    params_of,
    reference_kwargs,
    skip_reason,
    tensor_shapes,
    work,
)
from ._patterns import PURPOSE
from ._sizes import fit

__all__ = [
    "CPU_MAX_ELEMENTS",
    "PURPOSE",
    "SIZED_TO_MEMORY",
    "SNAPSHOT_MAX_ELEMENTS",
    "TIERS",
    "Case",
    "CaseContext",
    "SkipKind",
    "build_matrix",
    "call_kernel",
    "call_reference",
    "case_bytes",
    "case_from_id",
    "context",
    "fit",
    "index_range_problem",
    "kernel_kwargs",
    "make_args",
    "numel",
    "output_buffers",
    "params_of",
    "reference_kwargs",
    "shape_of",
    "skip_reason",
    "tensor_shapes",
    "upcast",
    "work",
]
