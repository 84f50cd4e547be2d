"""Logit soft-capping (as in Gemma 2): out = cap * tanh(x / cap), row by row over [M, N] logits. One program per
row, BLOCK_N-wide chunks along the row; tanh through the sigmoid identity tanh(y) = 2 sigmoid(2y) - 1 (a Taylor
series near 0), in fp32."""

import torch
import triton
import triton.language as tl

import kcheck

CAP = 30.0


@triton.jit
def softcap_kernel(x_ptr, out_ptr, N, stride_xm, stride_om, cap, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * stride_xm
    o_row = out_ptr + row * stride_om
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < N
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        y = x / cap
        # tanh(y) = 2 sigmoid(2y) - 1 loses every digit of a small y: its Taylor series there
        t = tl.where(tl.abs(y) < 1e-2, y * (1.0 - y * y * (1.0 / 3.0)), 2.0 * tl.sigmoid(2.0 * y) - 1.0)
        tl.store(o_row + cols, (cap * t).to(out_ptr.dtype.element_ty), mask=mask)


def softcap(x, BLOCK_N=1024):
    M, N = x.shape
    if x.stride(1) != 1:
        x = x.contiguous()
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    softcap_kernel[(M,)](x, out, N, x.stride(0), out.stride(0), CAP, BLOCK_N=min(BLOCK_N, triton.next_power_of_2(N)))
    return out


spec = kcheck.Spec(
    name="hx4_logit_softcap",
    kernel=softcap,
    reference=lambda x: CAP * torch.tanh(x / CAP),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=256)},
    configs=[{"BLOCK_N": 1024}, {"BLOCK_N": 128}],
)

BUG_CLASS = "int32-overflow"
