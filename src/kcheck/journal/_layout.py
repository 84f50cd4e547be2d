"""The journal's memory layout, shared by the Triton helpers, the CUDA C header and the host decoder.

One int32 buffer: a header of ``HEADER_WORDS`` words, then ``capacity`` entries of ``ENTRY_WORDS`` words each
(32 bytes: an entry is one aligned vector store in CUDA C). Word 0 of the header is the counter every append
increments with one atomic add; an append whose slot is past the capacity writes nothing and is counted as dropped
(``counter - capacity``). The Journal surrounds the buffer with guard words it checks after the run: nothing the
kernel does through the journal may touch them.
"""

from __future__ import annotations

#: Words of the header (word 0: the append counter; word 1: the capacity; word 2: the layout version).
HEADER_WORDS = 8
#: Words of one entry.
ENTRY_WORDS = 8
#: Layout version written in header word 2 (bump when a field moves).
VERSION = 1

# the fields of an entry, in order
BLOCK = 0  # linear block (program) index: x + nx * (y + ny * z)
PID_X = 1  # blockIdx.x / tl.program_id(0)
PID_Y = 2  # blockIdx.y / tl.program_id(1)
PID_Z = 3  # blockIdx.z / tl.program_id(2)
WARP = 4  # the warp within the block (CUDA C); -1 for a whole program (Triton)
STEP = 5  # the step the kernel logged
VALUE = 6  # the value, float32 bits
NONFINITE = 7  # how many values behind the entry were NaN or Inf (lanes of the warp, elements of the tile)

FIELDS = ("block", "pid_x", "pid_y", "pid_z", "warp", "step", "value", "nonfinite")

#: Step word of a slot that no append has written (the host fills every slot's step with it before the run).
UNWRITTEN = -(2**31)
#: Guard words on each side of the buffer, and their value.
GUARD_WORDS = 64
GUARD = 0x4B434A47  # "KCJG"
#: The largest capacity a Journal accepts: the counter is an int32 that also counts dropped appends.
MAX_CAPACITY = 2**26
