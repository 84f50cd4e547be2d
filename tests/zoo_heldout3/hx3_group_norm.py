"""GroupNorm over the channels of (M, C) features (`F.group_norm` with no spatial dimensions): each row's C channels
form G groups of C // G; each group is normalized by its own mean and variance, then the per-channel weight and bias
are applied. One program per (row, group); the statistics come from one pass over the group in fp32."""

import torch
import triton
import triton.language as tl

import kcheck

GROUPS = 8
EPS = 1e-5


@triton.jit
def group_norm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, C, CG, eps, stride_xm, stride_xc, stride_ym, stride_yc,
                      BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    g = tl.program_id(1).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    mask = offs < CG
    ch = g * CG + offs
    x = tl.load(x_ptr + row * stride_xm + ch * stride_xc, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / CG
    var = tl.sum(x * x, axis=0) / CG - mean * mean
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + ch, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + ch, mask=mask, other=0.0).to(tl.float32)
    y = (x - mean) * rstd * w + b
    tl.store(y_ptr + row * stride_ym + ch * stride_yc, y.to(y_ptr.dtype.element_ty), mask=mask)


def group_norm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    M, C = x.shape
    y = torch.empty((M, C), dtype=x.dtype, device=x.device)
    if M == 0:
        return y
    cg = C // GROUPS
    group_norm_kernel[(M, GROUPS)](x, weight.contiguous(), bias.contiguous(), y, C, cg, EPS,
                                   x.stride(0), x.stride(1), y.stride(0), y.stride(1),
                                   BLOCK=triton.next_power_of_2(cg))
    return y


def reference(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    M, C = x.shape
    g = x.reshape(M, GROUPS, C // GROUPS)
    mean = g.mean(-1, keepdim=True)
    var = (g - mean).pow(2).mean(-1, keepdim=True)
    return ((g - mean) / torch.sqrt(var + EPS)).reshape(M, C) * weight + bias


spec = kcheck.Spec(
    name="hx3_group_norm",
    kernel=group_norm,
    reference=reference,
    inputs=[kcheck.Tensor("M", "C"), kcheck.Tensor("C", name="weight", pattern="randn"),
            kcheck.Tensor("C", name="bias", pattern="randn")],
    dims={"M": kcheck.Dim(nominal=64), "C": kcheck.Dim(nominal=512, multiple_of=GROUPS)},
    reduce=["C"],
)

BUG_CLASS = "cancellation"
