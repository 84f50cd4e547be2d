"""Reference problem, declared the way KernelBench declares one: softmax over the last dimension."""

import torch
from torch import nn

GPU = torch.cuda.is_available()
ROWS = 4096 if GPU else 64
COLS = 4096 if GPU else 200


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=-1)


def get_inputs() -> list[torch.Tensor]:
    return [torch.randn(ROWS, COLS)]


def get_init_inputs() -> list[int]:
    return []
