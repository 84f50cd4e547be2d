"""Plain PyTorch callables: any function of torch tensors is a kernel; nothing to compile, nothing to distrust."""

from __future__ import annotations

import torch


def synchronize(device: str) -> None:
    """Wait for queued device work, so timings and results are final (a no-op on the CPU)."""
    if device == "cuda":
        torch.cuda.synchronize()
