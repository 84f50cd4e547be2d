"""Per-channel bias + SiLU on a Conv1d output in (batch, channels, length) layout:
y[b, c, l] = silu(x[b, c, l] + bias[c]).
The tensor is viewed as (B*C) rows of L contiguous samples; 2-D tiles of rows x samples, fp32 math."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def bias_silu_kernel(x_ptr, bias_ptr, out_ptr, R, L, stride_r, stride_l,
                     BLOCK_R: tl.constexpr, BLOCK_L: tl.constexpr):
    pid_r = tl.program_id(0).to(tl.int64)
    pid_l = tl.program_id(1).to(tl.int64)
    rows = pid_r * BLOCK_R + tl.arange(0, BLOCK_R).to(tl.int64)
    cols = pid_l * BLOCK_L + tl.arange(0, BLOCK_L).to(tl.int64)
    col_mask = cols < L
    mask = (rows < R)[:, None] & col_mask[None, :]
    x = tl.load(x_ptr + rows[:, None] * stride_r + cols[None, :] * stride_l, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(bias_ptr + cols, mask=col_mask, other=0.0).to(tl.float32)
    v = x + b[None, :]
    y = v * tl.sigmoid(v)
    tl.store(out_ptr + rows[:, None] * L + cols[None, :], y.to(out_ptr.dtype.element_ty), mask=mask)


def bias_silu(x, bias, BLOCK_R=16, BLOCK_L=128):
    B, C, L = x.shape
    x2 = x.reshape(B * C, L)
    bias = bias.contiguous()
    out = torch.empty((B, C, L), dtype=x.dtype, device=x.device)
    if out.numel():
        grid = (triton.cdiv(B * C, BLOCK_R), triton.cdiv(L, BLOCK_L))
        bias_silu_kernel[grid](x2, bias, out, B * C, L, x2.stride(0), x2.stride(1), BLOCK_R=BLOCK_R, BLOCK_L=BLOCK_L)
    return out


spec = kcheck.Spec(
    name="hx2_channel_bias_silu",
    kernel=bias_silu,
    reference=lambda x, b: torch.nn.functional.silu(x + b[:, None]),
    inputs=[kcheck.Tensor("B", "C", "L"), kcheck.Tensor("C", pattern="randn")],
    dims={"B": kcheck.Dim(nominal=2, max=4, real=()), "C": kcheck.Dim(nominal=64), "L": kcheck.Dim(nominal=160)},
    configs=[{"BLOCK_R": 16, "BLOCK_L": 128}, {"BLOCK_R": 64, "BLOCK_L": 32}],
)

BUG_CLASS = "wrong-axis"
