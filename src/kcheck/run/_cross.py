"""Triton's interpreter beside a GPU: a Triton Spec's small fp32 cases run once more in the interpreter, with its
checks, in a worker that sees no GPU.

A GPU hides two kinds of bug that the interpreter's checks find on any schedule and any memory layout:

- a race between programs: a program reads what another writes in the same launch (an in-place update that reads
  its neighbours, a total loaded back while others still add to it). On a GPU the programs that race may happen to
  run in an order that gives the right values on every case;
- an access out of bounds whose address lands in memory the process owns (PyTorch's caching allocator hands out
  slices of larger blocks): nothing faults, and a load whose lanes the store masks out leaves the values right.

These cases carry ``interpreted`` (their id says ``interpreter``) and run through the same route as the others
(``run_case`` in an ``Isolated`` worker), started with ``INTERPRETER_ENV``. A finding fails the case; any other
failure there (values wrong with every access in bounds and no race, an exception, a crash) is the interpreter's
arithmetic or its limits until the GPU's own cases say otherwise: the case is reported untrusted, not failed.
"""

from __future__ import annotations

from dataclasses import replace

from .._device import DeviceInfo, cpu_device
from .._results import CaseResult, Reason, ReasonKind, Status
from .._spec import Spec
from ..backends import backend_of
from ..cases import Case, build_matrix, numel, params_of, tensor_shapes

#: The largest tensor of a case run in the interpreter beside a GPU (its programs run one after another on the CPU).
CROSS_MAX_ELEMENTS = 2**16
#: At most this many interpreter cases per Spec: distinct shapes, layouts, launch configurations and modes.
CROSS_MAX_CASES = 6


def cross_cases(spec: Spec, device: DeviceInfo) -> list[Case]:
    """The cases of ``spec`` to run in Triton's interpreter beside ``device``'s own: none unless ``device`` is a GPU
    and the kernel is Triton's. The quick tier's cases as the CPU would build them, in fp32 where the Spec has it
    (the interpreter computes low precisions through numpy, not as a GPU does), one seed, up to
    ``CROSS_MAX_ELEMENTS`` in the largest tensor, one case per shape, layout, configuration and mode."""
    if not device.is_gpu:
        return []
    cpu = cpu_device(interpreter=True)
    try:
        if not backend_of(spec.kernel).interpreted(cpu):  # a framework Triton's interpreter does not run
            return []
    except Exception:  # a kernel no backend claims: its own cases say so
        return []
    names = [p.name for p in spec.precisions]
    first = "fp32" if "fp32" in names else names[0]
    try:
        cases = build_matrix(spec, cpu, tier="quick", large=False, precisions=[first], seeds=1)
    except Exception:  # a Spec whose matrix cannot be built here: its GPU cases report why
        return []
    seen: set[tuple[object, ...]] = set()
    keep: list[Case] = []
    for c in cases:
        key = (c.dims, c.layout, c.config, c.params)
        if c.skip is not None or key in seen or _largest(spec, c) > CROSS_MAX_ELEMENTS:
            continue
        seen.add(key)
        # no determinism repeats or property checks: the interpreter runs programs in one order and judges no value
        keep.append(replace(c, interpreted=True, repeats=0, properties=False))
    # the ragged shapes first: an edge is where an access leaves its tensor
    keep.sort(key=lambda c: -sum(v % 16 != 0 for v in c.sizes.values()))
    return keep[:CROSS_MAX_CASES]


def _largest(spec: Spec, case: Case) -> int:
    try:
        return max((numel(s) for s in tensor_shapes(spec, case.sizes, params_of(spec, case))), default=0)
    except Exception:  # shapes the Spec cannot give for this case: not one to add
        return CROSS_MAX_ELEMENTS + 1


def judge_cross(res: CaseResult) -> CaseResult:
    """An interpreter case's result beside a GPU: a finding (an access out of bounds, a race between programs)
    fails it; any other failure is untrusted, the GPU's own cases being the verdict on the values."""
    if res.status in (Status.PASSED, Status.SKIPPED, Status.UNTRUSTED):
        return res
    if res.status is Status.FAILED and res.reasons_of(ReasonKind.FINDING):
        res.warnings.append(Reason("in Triton's interpreter, beside the GPU: its checks see every access and every "
                                   "program's order, which the GPU's cases can pass without", ReasonKind.NOTE))
        return res
    why = "; ".join(str(r) for r in res.reasons[:2]) or res.status.value
    res.untrusted = (f"{res.status.value} in Triton's interpreter only, with every access in bounds and no race "
                     f"found ({why[:300]}): the GPU's cases judge the values")
    res.status = Status.UNTRUSTED
    res.warnings.append(Reason(f"not blamed on the kernel: {res.untrusted}", ReasonKind.UNTRUSTED))
    return res
