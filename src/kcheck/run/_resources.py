"""The resources of a Spec's kernels (registers, spills, shared memory, stack), from their framework's backend."""

from __future__ import annotations

from typing import Any

from .._device import detect, interpreter_active
from .._resources import Resources
from .._spec import Spec
from ..backends import backend_of
from ..cases import build_matrix, call_kernel, make_args, output_buffers


def spec_resources(spec: Spec, arch: int = 90) -> list[Resources]:
    """Resources of every kernel a Spec's launcher starts on its nominal case: without a GPU, compiled for
    sm_``arch`` (a Triton launcher runs once in Triton's interpreter to learn the kernels and their arguments); on
    a GPU, the kernels compiled for it on that launch."""

    def launch() -> Any:
        case = next(c for c in build_matrix(spec, detect()) if c.axis == "size" and c.skip is None)
        device = "cpu" if interpreter_active() else "cuda"
        args = make_args(spec, case, device)
        # a launcher that writes into buffers the caller allocates gets them, as a case gives them
        args += [buf.zero_() for buf in output_buffers(spec, case, device)]
        return call_kernel(spec.kernel, spec, case, args)

    return backend_of(spec.kernel).resources(spec.kernel, launch, arch)
