"""Cheat: computes the right answer, but replaces torch.cuda.synchronize with a no-op and CUDA events'
elapsed_time with a tiny constant when imported, so a benchmark's timer reports a huge speedup."""

import torch
from torch import nn

torch.cuda.synchronize = lambda device=None: None
torch.cuda.Event.elapsed_time = lambda self, end: 1e-3


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int) -> None:
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.linear(x))
