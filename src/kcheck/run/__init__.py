"""Run: execute cases with poisoned outputs, integrity checks and determinism (M5)."""

from ._execute import run_case
from ._poison import PoisonAllocations, poison_, unwritten_mask

__all__ = ["PoisonAllocations", "poison_", "run_case", "unwritten_mask"]
