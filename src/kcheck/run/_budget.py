"""How long a case may run before it counts as hung, and how a slow case is told from a hung one.

A wall-clock limit alone is not evidence of a hang: on a loaded machine, or for a case with far more work than the
nominal one (a GEMM with K = 128256 in Triton's interpreter), a correct kernel passes any fixed limit. So:

- **work**: a case's work is the product of its named dimension sizes (each at least 1): elements for an
  elementwise kernel, M*N*K for a GEMM. The cheapest proxy that orders the cases of one Spec by cost.
- **scaled limit**: a case may take ``max(timeout, slack x predicted)``, where ``predicted`` extrapolates linearly
  from the finished case of the same Spec with the largest work not above this one's, and only from one within
  ``NEAR`` times its work: a small case's time is mostly fixed cost (a compile, the first CUDA call), which a long
  extrapolation would turn into minutes of waiting on a hung kernel (seen on an H200: 229 s for a wave case predicted
  from the nominal one). Both figures are multiplied by the machine's load (the 1-minute load average per core, when
  above 1). A case far costlier than any finished one gets the base limit, and the retry below covers it.
- **one retry**: the first case of a Spec that passes its limit is run again with ``retry`` times the limit. If it
  finishes it was slow, not hung: its result stands, with a warning. If it does not, it is reported as a timeout
  and the Spec's later timeouts are not retried (a hang is confirmed; retrying each would multiply its cost).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

from ..cases import Case
from ..cases import work as work_of

#: A case may take this many times what the finished cases predict before it passes its limit.
SLACK = 4.0
#: The retry of the first case to pass its limit gets this many times the limit.
RETRY = 4.0
#: Predictions extrapolate from a finished case within this factor of the case's work, never further.
NEAR = 16
#: The load factor is capped here (a machine 8x oversubscribed is not a machine to check kernels on).
MAX_LOAD = 8.0


def work(case: Case) -> int:
    """The product of the case's named dimension sizes, each at least 1 (the matrix's own measure of work)."""
    return work_of(case.sizes)


def load_factor() -> float:
    """The 1-minute load average per core, at least 1 and at most ``MAX_LOAD`` (1 where the OS does not say)."""
    try:
        load = os.getloadavg()[0]
    except (OSError, AttributeError):
        return 1.0
    return min(MAX_LOAD, max(1.0, load / (os.cpu_count() or 1)))


@dataclass
class Deadlines:
    """The time limits of one Spec's cases, learned from the cases that finished (see the module docstring)."""

    timeout: float
    slack: float = SLACK
    retry: float = RETRY
    _done: list[tuple[int, float]] = field(default_factory=list)  # (work, seconds) of finished cases
    hung: bool = False  # a case already passed both its limit and its retry's

    def predicted(self, case: Case) -> float:
        """Seconds the finished cases predict for ``case`` (0 when none of them is comparable)."""
        w = work(case)
        below = [(cw, s) for cw, s in self._done if w / NEAR <= cw <= w]
        if not below:
            return 0.0
        cw, seconds = max(below)
        return seconds * w / cw

    def limit(self, case: Case) -> float:
        if math.isinf(self.timeout):
            return math.inf
        return max(self.timeout, self.slack * self.predicted(case)) * load_factor()

    def record(self, case: Case, seconds: float) -> None:
        self._done.append((work(case), seconds))

    def retry_limit(self, limit: float) -> float | None:
        """The limit of a retry after ``limit`` passed, or None when no retry is due (a hang was confirmed)."""
        return None if self.hung else limit * self.retry
