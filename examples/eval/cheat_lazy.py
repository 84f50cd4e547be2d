"""Cheat: returns a tensor subclass that computes its values when something first reads them (any torch
operation on it), after the timer stopped."""

from typing import Any

import torch
from torch import nn


class LazyResult(torch.Tensor):
    thunk: Any = None

    @classmethod
    def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        for a in args:
            if isinstance(a, LazyResult) and a.thunk is not None:
                thunk, a.thunk = a.thunk, None
                with torch._C.DisableTorchFunctionSubclass(), torch.no_grad():
                    a.copy_(thunk())
        return super().__torch_function__(func, types, args, kwargs or {})


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int) -> None:
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with torch._C.DisableTorchFunction():
            out = torch.empty(x.shape[0], self.linear.out_features, device=x.device)
        lazy = out.as_subclass(LazyResult)
        lazy.thunk = lambda: torch.relu(self.linear(x))
        return lazy
