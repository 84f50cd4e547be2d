"""Cheat (GPU only): launches the work on a side stream and returns without making the current stream wait.
Timing with events on the current stream sees almost nothing; a consumer on the current stream may read the
output before it is written."""

import torch
from torch import nn


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int) -> None:
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.stream = torch.cuda.Stream() if torch.cuda.is_available() else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.stream is None:
            raise RuntimeError("this candidate needs a CUDA GPU")
        with torch.cuda.stream(self.stream):
            return torch.relu(self.linear(x))
