"""Cheat: returns zeros. relu makes many expected values zero, so a loose absolute tolerance lets it pass
(KernelBench issue #165: zeros passed 4 of 60 level-1 problems)."""

import torch
from torch import nn


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int) -> None:
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.zeros(x.shape[0], self.linear.out_features, device=x.device)
