"""Gated RMSNorm (the norm-before-output-projection of Mamba-2): the input is gated by SiLU(z), then
RMS-normalized over the last dimension and scaled by a learned weight:

    g = x * silu(z);   y = g / sqrt(mean(g^2) + eps) * w

One program per row, the whole row in one BLOCK_N-wide tile (N up to a few thousand), statistics in fp32.
x and z may come with padded rows (their own row strides); the output is contiguous."""

import torch
import triton
import triton.language as tl

import kcheck

EPS = 1e-5


@triton.jit
def gated_rmsnorm_kernel(x_ptr, z_ptr, w_ptr, out_ptr, N, stride_x, stride_z, stride_o, eps,
                         BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
    z = tl.load(z_ptr + row * stride_z + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    g = x * (z / (1.0 + tl.exp(-z)))
    ms = tl.sum(g * g, axis=0) / N
    y = g * (1.0 / tl.sqrt(ms + eps)) * w
    tl.store(out_ptr + row * stride_x + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def gated_rmsnorm(x, z, weight):
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    x = x if x.stride(1) == 1 else x.contiguous()
    z = z if z.stride(1) == 1 else z.contiguous()
    gated_rmsnorm_kernel[(M,)](x, z, weight.contiguous(), out, N, x.stride(0), z.stride(0), out.stride(0), EPS,
                               BLOCK_N=triton.next_power_of_2(N))
    return out


def reference(x, z, weight):
    g = x * torch.nn.functional.silu(z)
    return g * torch.rsqrt(g.pow(2).mean(-1, keepdim=True) + EPS) * weight


spec = kcheck.Spec(
    name="hx7_gated_rmsnorm",
    kernel=gated_rmsnorm,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("M", "N", name="z"),
            kcheck.Tensor("N", name="weight", pattern="randn")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=512, max=8192)},
    reduce=["N"],
)

BUG_CLASS = "stride-assumption"
