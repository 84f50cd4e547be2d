"""Precisions kcheck knows, and their default tolerances (kcheck's default table, as data).

A *precision* is what a case runs in: the storage dtype of its floating inputs and outputs plus the precision the
kernel computes in. ``tf32`` stores float32 but multiplies with a 10-bit mantissa, so it gets its own row.

The table below is mirrored in ``docs/tolerances.md``; a test keeps the two in step.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ._errors import SpecError


@dataclass(frozen=True)
class Precision:
    """One row of the tolerance table."""

    name: str  # short id used in case ids: fp32, bf16, ...
    storage: torch.dtype  # dtype of floating inputs and outputs
    rtol: float  # default per-dtype relative tolerance
    eps: float  # machine epsilon of the *compute* precision (what accumulates rounding error)
    accumulate_eps: float  # epsilon of the precision sums accumulate in (fp32 for the half types)
    min_capability: tuple[int, int] | None = None  # CUDA capability needed, None if any device has it
    operand_eps: float = 0.0  # rounding of operands *below* the storage precision before multiplying (tf32)

    @property
    def storage_eps(self) -> float:
        return float(torch.finfo(self.storage).eps)


_F32_EPS = float(torch.finfo(torch.float32).eps)

#: kcheck's default tolerance table: fp64 1e-10, fp32 1e-5, tf32 1e-3, bf16/fp16 1e-2, fp8 5e-2.
PRECISIONS: dict[str, Precision] = {
    p.name: p
    for p in [
        Precision("fp64", torch.float64, 1e-10, float(torch.finfo(torch.float64).eps),
                  float(torch.finfo(torch.float64).eps)),
        Precision("fp32", torch.float32, 1e-5, _F32_EPS, _F32_EPS),
        Precision("tf32", torch.float32, 1e-3, 2.0**-10, _F32_EPS, operand_eps=2.0**-10),
        Precision("bf16", torch.bfloat16, 1e-2, 2.0**-7, _F32_EPS),
        Precision("fp16", torch.float16, 1e-2, 2.0**-10, _F32_EPS),
        Precision("fp8e4m3", torch.float8_e4m3fn, 5e-2, 2.0**-3, _F32_EPS, (8, 9)),
        Precision("fp8e5m2", torch.float8_e5m2, 5e-2, 2.0**-2, _F32_EPS, (8, 9)),
    ]
}

_ALIASES: dict[object, str] = {
    torch.float64: "fp64", "float64": "fp64", "double": "fp64",
    torch.float32: "fp32", "float32": "fp32", "float": "fp32",
    "tf32": "tf32",
    torch.bfloat16: "bf16", "bfloat16": "bf16",
    torch.float16: "fp16", "float16": "fp16", "half": "fp16",
    torch.float8_e4m3fn: "fp8e4m3", "fp8": "fp8e4m3", "float8_e4m3fn": "fp8e4m3",
    torch.float8_e5m2: "fp8e5m2", "float8_e5m2": "fp8e5m2",
}


def precision(value: object, argument: str = "dtypes") -> Precision:
    """Look up a precision by name, alias or torch dtype; a clear error otherwise."""
    if isinstance(value, Precision):
        return value
    key = value if isinstance(value, torch.dtype) else (value.lower() if isinstance(value, str) else value)
    try:
        name = key if isinstance(key, str) and key in PRECISIONS else _ALIASES.get(key)  # type: ignore[arg-type]
    except TypeError:  # unhashable: a list where a name was expected
        name = None
    if name is None:
        raise SpecError(argument, value, f"use one of {sorted(PRECISIONS)} or the matching torch dtype")
    return PRECISIONS[name]


def ulp_spacing(values: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """Spacing of ``dtype``'s representable numbers at each of ``values`` (float64 in, float64 out).

    Computed from the exponent so it works for every float dtype torch knows, fp8 included: for normal numbers
    the spacing is 2**(floor(log2|v|) - mantissa_bits), and below the smallest normal it is the subnormal step.
    """
    info = torch.finfo(dtype)
    mant_bits = round(-torch.log2(torch.tensor(info.eps, dtype=torch.float64)).item())
    mag = values.abs().clamp_min(info.tiny)
    exponent = torch.floor(torch.log2(mag))
    return torch.exp2(exponent - mant_bits)
