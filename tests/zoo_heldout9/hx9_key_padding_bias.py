"""Scaled attention scores plus an additive key-padding bias (T5/ALiBi-free encoders): out[b, t, s] = x[b, t, s] *
scale + bias[b, s], where bias holds 0 for real keys and a large negative value for padding. One program per
(batch, query block), lanes over the keys."""

import torch
import triton
import triton.language as tl

import kcheck

SCALE = 0.125


@triton.jit
def kpb_kernel(x_ptr, bias_ptr, out_ptr, T, S, stride_xb, stride_xt, stride_xs, stride_bb, stride_bs,
               stride_ob, stride_ot, scale, BLOCK_T: tl.constexpr, BLOCK_S: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    t = tl.program_id(1).to(tl.int64) * BLOCK_T + tl.arange(0, BLOCK_T)
    t_ok = t < T
    for s0 in range(0, S, BLOCK_S):
        s = s0 + tl.arange(0, BLOCK_S)
        s_ok = s < S
        mask = t_ok[:, None] & s_ok[None, :]
        x = tl.load(x_ptr + b * stride_xb + t[:, None] * stride_xt + s[None, :] * stride_xs, mask=mask, other=0.0)
        bias = tl.load(bias_ptr + b * stride_bb + t * stride_bs, mask=t_ok, other=0.0)
        y = x.to(tl.float32) * scale + bias.to(tl.float32)[:, None]
        tl.store(out_ptr + b * stride_ob + t[:, None] * stride_ot + s[None, :], y.to(out_ptr.dtype.element_ty),
                 mask=mask)


def key_padding_bias(x: torch.Tensor, bias: torch.Tensor, BLOCK_T: int = 16, BLOCK_S: int = 64) -> torch.Tensor:
    B, T, S = x.shape
    out = torch.empty((B, T, S), dtype=x.dtype, device=x.device)
    if out.numel() == 0:
        return out
    grid = (B, triton.cdiv(T, BLOCK_T))
    kpb_kernel[grid](x, bias, out, T, S, x.stride(0), x.stride(1), x.stride(2), bias.stride(0), bias.stride(1),
                     out.stride(0), out.stride(1), SCALE, BLOCK_T=BLOCK_T, BLOCK_S=BLOCK_S)
    return out


spec = kcheck.Spec(
    name="hx9_key_padding_bias",
    kernel=key_padding_bias,
    reference=lambda x, bias: x * SCALE + bias[:, None, :],
    inputs=[kcheck.Tensor("B", "T", "S", name="scores"), kcheck.Tensor("B", "S", name="bias")],
    dims={"B": kcheck.Dim(nominal=4), "T": kcheck.Dim(nominal=64), "S": kcheck.Dim(nominal=128)},
    configs=[{"BLOCK_T": 16, "BLOCK_S": 64}, {"BLOCK_T": 32, "BLOCK_S": 32}],
)

BUG_CLASS = 'wrong-axis'  # the planted class (from the README's table), for benchmarks/zoo.py
