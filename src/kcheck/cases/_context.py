"""What a ``Custom`` input's ``make`` sees of its case: ``CaseContext``, with seeded draws that are the same on
every device."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch


def _size(size: tuple[int | Sequence[int], ...]) -> tuple[int, ...]:
    """``(3, 4)`` or ``((3, 4),)`` as ``(3, 4)``, as torch's factories take either."""
    if len(size) == 1 and isinstance(size[0], Sequence):
        return tuple(int(s) for s in size[0])
    return tuple(int(s) for s in size)  # type: ignore[arg-type]


@dataclass(frozen=True)
class CaseContext:
    """The case a ``kcheck.Custom`` input is built for (``make(ctx)``).

    Fields:

    - ``dims``: the size of every named dimension in this case (``ctx.dims["T"]``);
    - ``dtype``: the storage dtype of the case's floating tensors (``torch.bfloat16`` in a bf16 case);
    - ``precision``: the case's precision name (``"fp32"``, ``"bf16"``, ``"tf32"``, ...);
    - ``pattern``: the case's data pattern (``"randn"``, ``"zeros"``, ``"large"``, ...; see ``cases._patterns``);
    - ``device``: where the case runs (``"cpu"`` or ``"cuda"``); put what ``make`` returns there;
    - ``generator``: a ``torch.Generator`` **on the CPU**, seeded from the Spec's name, the case's sizes, its seed
      and the input's position: draw with it on the CPU and move the result, e.g.
      ``torch.randint(0, V, (T,), generator=ctx.generator).to(ctx.device)``, so the same Spec builds the same
      values on a CPU and on a GPU (a CUDA generator draws other numbers; passing ``device="cuda"`` with this
      generator is an error, which kcheck explains);
    - ``seed``: the case's seed (0, 1, 2, ...);
    - ``params``: the modes this case runs with (``Spec(params=...)``), e.g. ``ctx.params["ignore_index"]``;
    - ``layout``: ``"contiguous"`` or ``"strided"`` (a ``Custom`` builds its own layout; kcheck does not change it).

    The helpers ``randn``, ``rand``, ``randint``, ``randperm`` and ``mask`` draw with ``generator`` on the CPU and
    return the tensor on ``device``: the device-portable way to draw.
    """

    dims: Mapping[str, int]
    dtype: torch.dtype
    precision: str
    pattern: str
    device: str
    generator: torch.Generator
    seed: int
    params: Mapping[str, Any] = field(default_factory=dict)
    layout: str = "contiguous"

    def _there(self, x: torch.Tensor) -> torch.Tensor:
        return x if str(self.device) == "cpu" else x.to(self.device)

    def randn(self, *size: int | Sequence[int], dtype: torch.dtype | None = None) -> torch.Tensor:
        """Standard normal values of ``size`` in ``dtype`` (default: the case's storage dtype), drawn in float32."""
        x = torch.randn(_size(size), generator=self.generator, dtype=torch.float32)
        return self._there(x.to(dtype or self.dtype))

    def rand(self, *size: int | Sequence[int], dtype: torch.dtype | None = None) -> torch.Tensor:
        """Uniform values in [0, 1) of ``size`` in ``dtype`` (default: the case's storage dtype)."""
        x = torch.rand(_size(size), generator=self.generator, dtype=torch.float32)
        return self._there(x.to(dtype or self.dtype))

    def randint(self, low: int, high: int, size: Sequence[int],
                dtype: torch.dtype = torch.int64) -> torch.Tensor:
        """Integers in [low, high) of ``size`` (as ``torch.randint(low, high, size)``)."""
        return self._there(torch.randint(low, high, _size((size,)), generator=self.generator, dtype=dtype))

    def randperm(self, n: int, dtype: torch.dtype = torch.int64) -> torch.Tensor:
        """A random permutation of 0..n-1."""
        return self._there(torch.randperm(n, generator=self.generator, dtype=dtype))

    def mask(self, *size: int | Sequence[int], density: float = 0.5) -> torch.Tensor:
        """A boolean tensor of ``size``, each element True with probability ``density``."""
        x = torch.rand(_size(size), generator=self.generator, dtype=torch.float32) < density
        return self._there(x)


def cpu_generator(seed: int) -> torch.Generator:
    gen = torch.Generator(device="cpu")
    gen.manual_seed(seed)
    return gen
