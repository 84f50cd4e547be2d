"""Reference problem, declared the way KernelBench declares one: relu(x @ W.T + b).

The sizes are smaller on a machine without a GPU, where Triton kernels run in Triton's interpreter.
"""

import torch
from torch import nn

GPU = torch.cuda.is_available()
BATCH = 4096 if GPU else 64
IN_FEATURES = 4096 if GPU else 128
OUT_FEATURES = 4096 if GPU else 96


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int) -> None:
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.linear(x))


def get_inputs() -> list[torch.Tensor]:
    return [torch.randn(BATCH, IN_FEATURES)]


def get_init_inputs() -> list[int]:
    return [IN_FEATURES, OUT_FEATURES]
