"""Resources per kernel, compiled for sm_90 even without a GPU: registers, spills, shared memory, stack.

One parser for ptxas's ``-v`` report, which both routes produce: ``nvcc -Xptxas -v`` for CUDA C, and Triton's own
ptxas run on the PTX of a kernel Triton compiled for sm_90 (``backends/_triton.compile_resources``). A kernel that
spills gets the warning "slow for no reason: spilling", with the figures.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '(sm_\w+)'")
_PROPS = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers")
_SMEM = re.compile(r"(\d+) bytes smem")


@dataclass
class Resources:
    kernel: str
    arch: str
    registers: int
    spill_stores: int = 0  # bytes
    spill_loads: int = 0  # bytes
    shared_bytes: int = 0  # static shared memory (Triton: what the compiled kernel asks for at launch)
    stack_bytes: int = 0
    source: str = "ptxas"  # how the figures were obtained

    @property
    def spills(self) -> bool:
        return self.spill_stores > 0 or self.spill_loads > 0

    def warning(self) -> str | None:
        if not self.spills:
            return None
        return (f"slow for no reason: spilling: {self.kernel} spills {self.spill_stores} bytes (stores) and "
                f"{self.spill_loads} bytes (loads) to local memory with {self.registers} registers on {self.arch}")

    def describe(self) -> str:
        return (f"{self.kernel} on {self.arch}: {self.registers} registers, {self.spill_stores}/{self.spill_loads} "
                f"bytes spilled (stores/loads), {self.shared_bytes} bytes shared, {self.stack_bytes} bytes stack")


def parse_ptxas(text: str) -> list[Resources]:
    """Every entry function of a ``ptxas -v`` report, in order."""
    out: list[Resources] = []
    current: Resources | None = None
    for line in text.splitlines():
        m = _ENTRY.search(line)
        if m:
            current = Resources(m.group(1), m.group(2), 0)
            out.append(current)
            continue
        if current is None:
            continue
        m = _PROPS.search(line)
        if m:
            current.stack_bytes, current.spill_stores, current.spill_loads = map(int, m.groups())
            continue
        m = _USED.search(line)
        if m:
            current.registers = int(m.group(1))
            s = _SMEM.search(line)
            current.shared_bytes = int(s.group(1)) if s else 0
    return out
