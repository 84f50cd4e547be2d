"""The environment a timing belongs to: GPU, driver, torch, Triton. A baseline is compared only within one."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from dataclasses import asdict, dataclass
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import torch


@dataclass(frozen=True)
class Environment:
    """What decides a kernel's speed besides its code. Timings from two environments are not comparable."""

    gpu: str
    driver: str
    torch: str
    triton: str

    @property
    def key(self) -> str:
        return f"gpu={self.gpu};driver={self.driver};torch={self.torch};triton={self.triton}"

    def to_dict(self) -> dict[str, str]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Environment:
        return cls(**{k: str(data.get(k, "?")) for k in ("gpu", "driver", "torch", "triton")})

    def differences(self, other: Environment) -> list[str]:
        """What differs from ``other``, as ``field: theirs -> ours`` lines."""
        return [f"{k}: {getattr(other, k)} -> {getattr(self, k)}" for k in ("gpu", "driver", "torch", "triton")
                if getattr(self, k) != getattr(other, k)]

    def describe(self) -> str:
        return f"{self.gpu}, driver {self.driver}, torch {self.torch}, triton {self.triton}"


def _triton_version() -> str:
    try:
        return version("triton")
    except PackageNotFoundError:
        return "none"


@lru_cache(maxsize=1)
def driver_version() -> str:
    """The NVIDIA driver's version (nvidia-smi's, e.g. 560.35.03), else the CUDA driver API's (e.g. cuda-12.6),
    else 'unknown'."""
    smi = shutil.which("nvidia-smi")
    if smi:
        try:
            out = subprocess.run([smi, "--query-gpu=driver_version", "--format=csv,noheader"], capture_output=True,
                                 text=True, timeout=20, check=False).stdout.strip().splitlines()
            if out and out[0].strip():
                return out[0].strip()
        except (OSError, subprocess.SubprocessError):
            pass
    try:
        lib = ctypes.CDLL("libcuda.so.1")
        v = ctypes.c_int()
        if lib.cuDriverGetVersion(ctypes.byref(v)) == 0:
            return f"cuda-{v.value // 1000}.{v.value % 1000 // 10}"
    except (OSError, AttributeError):
        pass
    return "unknown"


def current(device_index: int | None = None) -> Environment | None:
    """This machine's environment, or None when it has no CUDA GPU."""
    if not torch.cuda.is_available():
        return None
    idx = torch.cuda.current_device() if device_index is None else device_index
    return Environment(torch.cuda.get_device_name(idx), driver_version(), str(torch.__version__), _triton_version())
