"""Cheat: like cheat_stale.py, but the allocation bypasses torch's function hooks (no __torch_function__ mode sees
it), so only poisoning the allocator's free memory shows it. GPU only: on a CPU the allocation comes from malloc,
not from a cache holding the reference's result."""

import torch
from torch import nn


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int) -> None:
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with torch._C.DisableTorchFunction():
            return torch.empty(x.shape[0], self.linear.out_features, device=x.device)
