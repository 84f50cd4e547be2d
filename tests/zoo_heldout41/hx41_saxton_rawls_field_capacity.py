"""Soil water content at field capacity (-33 kPa) by the Saxton & Rawls (2006) pedotransfer function:

    t = -0.251 S + 0.195 C + 0.011 OM + 0.006 S*OM - 0.027 C*OM + 0.452 S*C + 0.299
    theta_33 = t + (1.283 t^2 - 0.374 t - 0.015)

with S and C the sand and clay fractions and OM the organic matter (%), the three columns of an [M, 3] tensor of
soil samples (any strides). BLOCK_M samples per program, fp32 math, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "stride-assumption"


@triton.jit
def field_capacity_kernel(x_ptr, out_ptr, M, s_xm, s_xk, BLOCK_M: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    mask = rows < M
    sand = tl.load(x_ptr + rows * s_xm, mask=mask, other=0.0).to(tl.float32)
    clay = tl.load(x_ptr + rows * s_xm + s_xk, mask=mask, other=0.0).to(tl.float32)
    om = tl.load(x_ptr + rows * s_xm + 2 * s_xk, mask=mask, other=0.0).to(tl.float32)
    t = (-0.251 * sand + 0.195 * clay + 0.011 * om + 0.006 * sand * om - 0.027 * clay * om
         + 0.452 * sand * clay + 0.299)
    theta = t + (1.283 * t * t - 0.374 * t - 0.015)
    tl.store(out_ptr + rows, theta.to(out_ptr.dtype.element_ty), mask=mask)


def saxton_rawls_field_capacity(x, BLOCK_M=128):
    M = x.shape[0]
    out = torch.empty((M,), dtype=x.dtype, device=x.device)
    if M:
        field_capacity_kernel[(triton.cdiv(M, BLOCK_M),)](x, out, M, 3, 1, BLOCK_M=BLOCK_M)
    return out


def reference(x):
    sand, clay, om = x[:, 0], x[:, 1], x[:, 2]
    t = (-0.251 * sand + 0.195 * clay + 0.011 * om + 0.006 * sand * om - 0.027 * clay * om
         + 0.452 * sand * clay + 0.299)
    return t + (1.283 * t * t - 0.374 * t - 0.015)


spec = kcheck.Spec(
    name="saxton_rawls_field_capacity",
    kernel=saxton_rawls_field_capacity,
    reference=reference,
    inputs=[kcheck.Tensor("M", 3, name="soil")],
    dims={"M": kcheck.Dim(nominal=1500)},
    configs=[{"BLOCK_M": 128}, {"BLOCK_M": 32}],
)
