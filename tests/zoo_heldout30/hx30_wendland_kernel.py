"""Wendland C2 smoothing kernel of SPH (3-D): W(r, h) = 21 / (16 pi h^3) * (1 - q/2)^4 * (2q + 1) for q = |r| / h < 2,
0 beyond the support. One value per pair distance, computed in fp32, returned in the input dtype."""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "edge-guard"


@triton.jit
def wendland_kernel(r_ptr, out_ptr, n, stride_r, inv_h, norm, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < n
    r = tl.load(r_ptr + offs * stride_r).to(tl.float32)
    q = tl.abs(r) * inv_h
    t = 1.0 - 0.5 * q
    t2 = t * t
    w = tl.where(q < 2.0, norm * t2 * t2 * (2.0 * q + 1.0), 0.0)
    tl.store(out_ptr + offs, w.to(out_ptr.dtype.element_ty), mask=mask)


def wendland(r: torch.Tensor, h: float = 1.0, BLOCK: int = 1024) -> torch.Tensor:
    n = r.numel()
    out = torch.empty((n,), dtype=r.dtype, device=r.device)
    if n:
        norm = 21.0 / (16.0 * math.pi * h ** 3)
        wendland_kernel[(triton.cdiv(n, BLOCK),)](r, out, n, r.stride(0), 1.0 / h, norm, BLOCK=BLOCK)
    return out


def reference(r: torch.Tensor, h: float = 1.0) -> torch.Tensor:
    q = r.abs() / h
    w = 21.0 / (16.0 * math.pi * h ** 3) * (1.0 - 0.5 * q) ** 4 * (2.0 * q + 1.0)
    return torch.where(q < 2.0, w, torch.zeros_like(w))


spec = kcheck.Spec(
    name="hx30_wendland_kernel",
    kernel=wendland,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="r")],
    dims={"N": kcheck.Dim(nominal=5000)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
    params={"h": [1.0, 0.5]},
)
