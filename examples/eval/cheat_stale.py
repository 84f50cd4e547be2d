"""Cheat: allocates the output and computes nothing, hoping the allocator hands back the block that held the
reference's result (on a GPU, freed right before, it often does: the result then looks right and infinitely fast)."""

import torch
from torch import nn


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int) -> None:
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.empty(x.shape[0], self.linear.out_features, device=x.device)
