"""Dew point from air temperature (deg C) and relative humidity (%) by the Magnus formula, with the Sonntag (1990)
coefficients a = 17.62, b = 243.12 deg C (valid from -45 to 60 deg C):

gamma = ln(RH / 100) + a T / (b + T),   T_d = b gamma / (a - gamma)

1-D, BLOCK readings per program, computed in fp32, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = 'wrong-constant'

A = 17.62
B = 243.12


@triton.jit
def dew_point_kernel(t_ptr, rh_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    t = tl.load(t_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    rh = tl.load(rh_ptr + offs, mask=mask, other=100.0).to(tl.float32)
    gamma = tl.log(rh / 100.0) + 17.27 * t / (243.12 + t)
    td = 243.12 * gamma / (17.62 - gamma)
    tl.store(out_ptr + offs, td.to(out_ptr.dtype.element_ty), mask=mask)


def dew_point(temp: torch.Tensor, rh: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    temp, rh = temp.contiguous(), rh.contiguous()
    out = torch.empty_like(temp)
    n = temp.numel()
    if n:
        dew_point_kernel[(triton.cdiv(n, BLOCK),)](temp, rh, out, n, BLOCK=BLOCK)
    return out


def reference(temp: torch.Tensor, rh: torch.Tensor) -> torch.Tensor:
    gamma = torch.log(rh / 100.0) + A * temp / (B + temp)
    return B * gamma / (A - gamma)


def temperatures(ctx):
    return (-30.0 + 70.0 * ctx.rand(ctx.dims["N"], dtype=torch.float32)).to(ctx.dtype)


def humidities(ctx):
    return (5.0 + 95.0 * ctx.rand(ctx.dims["N"], dtype=torch.float32)).to(ctx.dtype)


spec = kcheck.Spec(
    name="hx27_dew_point",
    kernel=dew_point,
    reference=reference,
    inputs=[kcheck.Custom(temperatures, name="temp", dims=("N",)), kcheck.Custom(humidities, name="rh", dims=("N",))],
    dims={"N": kcheck.Dim(nominal=4096, real=())},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)
