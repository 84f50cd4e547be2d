"""Frequency-domain filtering: y = x * h elementwise on complex numbers stored as (re, im) pairs in a trailing
dimension of 2, as torch.view_as_real lays them out (an FFT convolution's middle step in audio and long-conv
models). A 1-D grid over the complex elements; the product is formed in fp32 and stored in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "edge-guard"


@triton.jit
def cmul_kernel(x_ptr, h_ptr, y_ptr, N, sxn, sxc, shn, shc, syn, syc, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    xr = tl.load(x_ptr + offs * sxn, mask=mask, other=0.0).to(tl.float32)
    xi = tl.load(x_ptr + offs * sxn + sxc, mask=mask, other=0.0).to(tl.float32)
    hr = tl.load(h_ptr + offs * shn, mask=mask, other=0.0).to(tl.float32)
    hi = tl.load(h_ptr + offs * shn + shc).to(tl.float32)
    yr = xr * hr - xi * hi
    yi = xr * hi + xi * hr
    tl.store(y_ptr + offs * syn, yr.to(y_ptr.dtype.element_ty), mask=mask)
    tl.store(y_ptr + offs * syn + syc, yi.to(y_ptr.dtype.element_ty), mask=mask)


def complex_mul(x: torch.Tensor, h: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    n = x.shape[0]
    y = torch.empty((n, 2), dtype=x.dtype, device=x.device)
    if n:
        cmul_kernel[(triton.cdiv(n, BLOCK),)](x, h, y, n, x.stride(0), x.stride(1), h.stride(0), h.stride(1),
                                              y.stride(0), y.stride(1), BLOCK=BLOCK)
    return y


def reference(x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
    xr, xi, hr, hi = x[:, 0], x[:, 1], h[:, 0], h[:, 1]
    return torch.stack((xr * hr - xi * hi, xr * hi + xi * hr), dim=-1)


spec = kcheck.Spec(
    name="hx16_complex_mul",
    kernel=complex_mul,
    reference=reference,
    inputs=[kcheck.Tensor("N", 2, name="x"), kcheck.Tensor("N", 2, name="h")],
    dims={"N": kcheck.Dim(nominal=4096)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)
