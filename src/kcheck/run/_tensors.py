"""What a kernel or a reference returned, as a tuple of tensors (shared by the forward and the gradient steps)."""

from __future__ import annotations

from typing import Any

import torch


def as_tuple(value: Any, what: str) -> tuple[torch.Tensor, ...]:
    if isinstance(value, torch.Tensor):
        return (value,)
    if isinstance(value, (tuple, list)) and all(isinstance(v, torch.Tensor) for v in value):
        return tuple(value)
    raise TypeError(f"{what} returned {type(value).__name__}; it must return a tensor or a tuple of tensors")
