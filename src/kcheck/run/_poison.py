"""Poisoned outputs: every output buffer is filled with a marker before the kernel runs.

Floating buffers get a NaN with a payload no arithmetic produces (a computed NaN is the canonical quiet NaN, an
input's NaN keeps its own payload), so an element still holding the exact poison bits was never written. fp8 e4m3
has a single NaN encoding: there the poison is that NaN and "unwritten" cannot be told from a computed NaN (the
report says so). Integer buffers get 0xA5 bytes.

Outputs a kernel allocates itself (``torch.empty`` inside the launcher) are poisoned too, through a
TorchFunctionMode active during the call: on the CPU ``torch.empty`` returns whatever memory held, on a fresh GPU
process it returns zeros, and neither shows an unwritten element reliably.
"""

from __future__ import annotations

from typing import Any

import torch
from torch.overrides import TorchFunctionMode

#: (bits dtype, poison bit pattern) per floating dtype.
_FLOAT_POISON: dict[torch.dtype, tuple[torch.dtype, int]] = {
    torch.float64: (torch.int64, 0x7FF4A5A5A5A5A5A5),
    torch.float32: (torch.int32, 0x7FA5A5A5),
    torch.float16: (torch.int16, 0x7DA5),
    torch.bfloat16: (torch.int16, 0x7FA5),
    torch.float8_e4m3fn: (torch.int8, 0x7F),
    torch.float8_e5m2: (torch.int8, 0x7D),
}
AMBIGUOUS = {torch.float8_e4m3fn}  # poison is the only NaN: unwritten and computed NaN look alike


def poison_(t: torch.Tensor) -> torch.Tensor:
    """Fill ``t`` in place with the poison marker of its dtype."""
    if t.numel() == 0:
        return t
    if t.dtype in _FLOAT_POISON:
        bits, value = _FLOAT_POISON[t.dtype]
        t.view(bits).fill_(value)
    elif t.dtype == torch.bool:
        t.fill_(True)
    else:
        t.view(torch.uint8).fill_(0xA5) if t.is_contiguous() else t.fill_(-0x5A5A5A5B if t.is_signed() else 0xA5)
    return t


def unwritten_mask(t: torch.Tensor) -> torch.Tensor | None:
    """True where ``t`` still holds the poison marker; None for dtypes where that cannot be told."""
    if t.dtype in _FLOAT_POISON:
        bits, value = _FLOAT_POISON[t.dtype]
        return t.contiguous().view(bits) == value
    if t.dtype == torch.bool:
        return None
    probe = poison_(torch.empty(1, dtype=t.dtype, device=t.device))
    return t == probe


_FACTORIES = {torch.empty, torch.empty_like, torch.empty_strided, torch.Tensor.new_empty}


class PoisonAllocations(TorchFunctionMode):
    """While active, tensors from ``torch.empty``/``empty_like``/``empty_strided``/``new_empty`` come poisoned."""

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        out = func(*args, **(kwargs or {}))
        if func in _FACTORIES and isinstance(out, torch.Tensor):
            with torch.no_grad():
                poison_(out)
        return out
