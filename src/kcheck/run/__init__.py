"""Run: the one route that runs a case (``run_case`` = ``cannot_run``, ``execute``, ``judge``), in this process or
in an isolated worker (``Isolated``), with time limits that know a slow case from a hung one (``Deadlines``). On a
GPU, a Triton Spec's small cases run once more in Triton's interpreter, in a worker that sees no GPU (``cross_cases``,
``judge_cross``).

``execute`` builds the inputs, runs the float64 reference and the kernel with poisoned outputs under the
interpreter's checks where they apply, and returns an ``Execution``; ``judge`` compares it. Error maps, arange
decoding, the sanitizer's worker and the debugger's probes all call ``execute`` or ``run_case``.
"""

from ._budget import Deadlines, load_factor
from ._cross import CROSS_MAX_CASES, CROSS_MAX_ELEMENTS, cross_cases, judge_cross
from ._execute import Execution, RunOptions, cannot_run, execute, interpreter_checks, judge, run_case
from ._gpu_lock import current_gpu, large_case_turn
from ._grad import EMPTY_OPS, grad_label
from ._isolate import INTERPRETER_ENV, Isolated, die_with_parent, discard_prestarted, warm_up
from ._poison import AMBIGUOUS, PoisonAllocations, poison_, unwritten_mask
from ._pool import Pool, pinning, visible_gpus, worker_count
from ._resources import spec_resources
from ._tensors import as_tuple

__all__ = ["AMBIGUOUS", "CROSS_MAX_CASES", "CROSS_MAX_ELEMENTS", "EMPTY_OPS", "INTERPRETER_ENV", "Deadlines",
           "Execution", "Isolated", "PoisonAllocations", "Pool", "RunOptions", "as_tuple", "cannot_run", "cross_cases",
           "current_gpu", "die_with_parent", "discard_prestarted", "execute", "grad_label", "interpreter_checks",
           "judge", "judge_cross", "large_case_turn", "load_factor", "pinning", "poison_", "run_case",
           "spec_resources", "unwritten_mask", "visible_gpus", "warm_up", "worker_count"]
