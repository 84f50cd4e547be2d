"""Shared helpers. kcheck's own pytest plugin (entry point) sets TRITON_INTERPRET=1 here, where there is no GPU."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT / "tests"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    from kcheck._device import interpreter_active

    gpu, interpreting = torch.cuda.is_available(), interpreter_active()
    no_gpu = pytest.mark.skip(reason="needs a CUDA GPU")
    no_interpreter = pytest.mark.skip(reason="tests Triton's interpreter (CPU); here the kernels run on the GPU")
    for item in items:
        if "gpu" in item.keywords and not gpu:
            item.add_marker(no_gpu)
        if "interpreter" in item.keywords and not interpreting:
            item.add_marker(no_interpreter)
