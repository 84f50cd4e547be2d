"""Data patterns: each a recipe for a floating tensor's values, chosen to expose one class of bug.

Values are drawn in float32 on the target device, then cast to the storage dtype, so the reference sees exactly the
numbers the kernel sees.
"""

from __future__ import annotations

import math

import torch

#: What each pattern is for, shown in docs and reports.
PURPOSE = {
    "randn": "typical values",
    "zeros": "hides nothing but shows NaN from 0/0 and unwritten outputs",
    "ones": "sums become counts: a wrong count shows as an integer",
    "eye": "identity: a transposition or a wrong row shows at once",
    "arange": "each value is its flat index (mod 2**24 in fp32, 2048 in fp16, 256 in bf16): a wrong output names "
              "the input element it came from",
    "large": "large magnitude: exp overflows past 88 in fp32 and past 11 in fp16",
    "tiny": "tiny and subnormal values: flush-to-zero and underflow",
    "nonfinite": "NaN and +-Inf at known places: they must propagate where the reference puts them",
    "constant": "constant rows (variance 0): division by a zero spread",
    "large_mean": "large mean, small spread: catastrophic cancellation in E[x^2]-E[x]^2",
}


def _mantissa_bits(dtype: torch.dtype) -> int:
    return round(-torch.log2(torch.tensor(torch.finfo(dtype).eps)).item())


def arange_period(dtype: torch.dtype) -> int:
    """Largest power of two such that every integer below it is exact in ``dtype`` (2**24 in fp32, 256 in bf16)."""
    return 2 ** min(_mantissa_bits(dtype) + 1, 24)


def large_scale(dtype: torch.dtype) -> float:
    """randn times this reaches past the exp overflow threshold of the dtype (88 in fp32, 11 in fp16)."""
    if dtype == torch.float16:
        return 12.0
    if dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
        return 16.0
    return 100.0


def large_mean(dtype: torch.dtype) -> float:
    """A mean far above the spread (1) yet representable with room to add two such values."""
    if dtype in (torch.float32, torch.float64):
        return 1e4
    if dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
        return 64.0
    return 300.0


def make(pattern: str, shape: tuple[int, ...], dtype: torch.dtype, device: torch.device | str,
         gen: torch.Generator) -> torch.Tensor:
    """A contiguous tensor of ``shape`` filled per ``pattern``, in ``dtype``."""
    numel = 1
    for s in shape:
        numel *= s
    f32 = torch.float32

    def randn() -> torch.Tensor:
        return torch.randn(shape, generator=gen, device=device, dtype=f32)

    if pattern == "randn":
        x = randn()
    elif pattern == "zeros":
        x = torch.zeros(shape, device=device, dtype=f32)
    elif pattern == "ones":
        x = torch.ones(shape, device=device, dtype=f32)
    elif pattern == "eye":
        if len(shape) >= 2:
            x = torch.eye(shape[-2], shape[-1], device=device, dtype=f32).expand(shape).contiguous()
        else:
            x = torch.zeros(shape, device=device, dtype=f32)
            if numel:
                x.view(-1)[0] = 1.0
    elif pattern == "arange":
        p = arange_period(dtype)
        x = (torch.arange(numel, device=device, dtype=torch.int64) % p).to(f32).reshape(shape)  # value = index
    elif pattern == "large":
        x = randn().mul_(large_scale(dtype))
    elif pattern == "tiny":
        x = randn().mul_(torch.finfo(dtype).tiny * 4)
    elif pattern == "nonfinite":
        x = randn()
        flat = x.view(-1)
        for pos, val in ((numel // 3, float("nan")), (2 * numel // 3, float("inf")), (numel - 1, float("-inf"))):
            if numel > 0:
                flat[pos] = val
    elif pattern == "constant":
        if len(shape) >= 1 and numel:
            row = torch.randn((*shape[:-1], 1), generator=gen, device=device, dtype=f32)
            x = row.expand(shape).contiguous()
        else:
            x = torch.full(shape, 0.5, device=device, dtype=f32)
    elif pattern == "large_mean":
        x = randn().add_(large_mean(dtype))
    else:  # validated in Spec; kept for direct callers
        raise ValueError(f"unknown pattern {pattern!r}")
    return x.to(dtype)


def make_mask(pattern: str, shape: tuple[int, ...], density: float, device: torch.device | str,
              gen: torch.Generator) -> torch.Tensor:
    """A boolean mask of ``shape`` per ``pattern``: ``zeros`` all False, ``ones`` all True, ``constant`` whole rows
    alternately all False and all True (the extremes a masked reduction must handle: no element, every element),
    ``eye`` the diagonal, ``arange`` every other element; any other pattern draws each element True with
    probability ``density`` (the floating patterns' magnitudes mean nothing to a mask)."""
    if pattern == "zeros":
        return torch.zeros(shape, dtype=torch.bool, device=device)
    if pattern == "ones":
        return torch.ones(shape, dtype=torch.bool, device=device)
    if pattern == "constant":
        if not shape:
            return torch.zeros(shape, dtype=torch.bool, device=device)
        rows = torch.arange(math.prod(shape[:-1]), device=device).reshape(*shape[:-1], 1) % 2 == 1
        return rows.expand(shape).contiguous()
    if pattern == "eye":
        return make("eye", shape, torch.float32, device, gen) != 0
    if pattern == "arange":
        return torch.arange(math.prod(shape), device=device).reshape(shape) % 2 == 0
    return torch.rand(shape, generator=gen, device=device, dtype=torch.float32) < density
