"""The physical floor of a call: the time below which no implementation can run on this device.

floor = max(bytes / memory bandwidth, FLOPs / peak): the bytes are the inputs the call must read and the outputs
it must write; the FLOPs are counted on the reference by ``torch.utils.flop_counter.FlopCounterMode`` (matmuls,
convolutions, attention). The peaks are the vendor's dense figures (sparsity excluded), the fastest path a
precision may take (an fp32 problem may use TF32 tensor cores), so the floor is never above what the device can do:

- H100 SXM / H200: https://www.nvidia.com/en-us/data-center/h200/ (4.8 TB/s; TF32 494.7, BF16/FP16 989.4,
  FP8 1978.9 dense TFLOPS), https://www.nvidia.com/en-us/data-center/h100/ (3.35 TB/s);
- A100: https://www.nvidia.com/en-us/data-center/a100/ (2.04 TB/s; TF32 156, BF16/FP16 312 TFLOPS).

A device not in the table gets its bandwidth from the properties torch reports (memory clock x bus width x 2) and
no FLOP floor.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Peak:
    bandwidth: float  # bytes / s
    flops: dict[str, float]  # precision -> FLOP/s, the fastest dense path of that precision
    source: str


_HOPPER = {"fp64": 67e12, "fp32": 494.7e12, "tf32": 494.7e12, "bf16": 989.4e12, "fp16": 989.4e12,
           "fp8": 1978.9e12}
_TABLE = {
    "H200": Peak(4.8e12, _HOPPER, "NVIDIA H200 datasheet"),
    "H100": Peak(3.35e12, _HOPPER, "NVIDIA H100 SXM datasheet"),
    "A100": Peak(2.039e12, {"fp64": 19.5e12, "fp32": 156e12, "tf32": 156e12, "bf16": 312e12, "fp16": 312e12},
                 "NVIDIA A100 80GB datasheet"),
}


def device_peak(device: str) -> Peak | None:
    """The peaks of the current CUDA device, or None (the CPU, or an unknown device without memory figures)."""
    if device != "cuda" or not torch.cuda.is_available():
        return None
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    for key, peak in _TABLE.items():
        if key in props.name:
            return peak
    clock, width = getattr(props, "memory_clock_rate", 0), getattr(props, "memory_bus_width", 0)
    if clock and width:
        return Peak(2.0 * clock * 1e3 * width / 8, {}, f"{props.name}: memory clock x bus width")
    return None


def floor_seconds(peak: Peak, nbytes: int, flops: int, precision: str) -> float:
    mem = nbytes / peak.bandwidth
    rate = peak.flops.get(precision) or peak.flops.get("fp32")
    compute = flops / rate if rate else 0.0
    return max(mem, compute)


def count_flops(fn: object, args: list[object]) -> int:
    """FLOPs of ``fn(*args)`` as torch's FLOP counter sees them (0 where it counts none)."""
    from torch.utils.flop_counter import FlopCounterMode

    counter = FlopCounterMode(display=False)
    with counter, torch.no_grad():
        fn(*args)  # type: ignore[operator]
    return int(counter.get_total_flops())
