"""Group RMSNorm: the N features of each row split into G groups of N // G, each group scaled by its own
1 / sqrt(mean(x^2) + eps), then by a per-feature weight. One program per (row, group), fp32 math."""

import torch
import triton
import triton.language as tl

import kcheck

GROUPS = 8
EPS = 1e-6


@triton.jit
def group_rmsnorm_kernel(x_ptr, w_ptr, out_ptr, stride_xm, stride_xn, stride_om, eps, GROUP: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    g = tl.program_id(1)
    cols = g * GROUP + tl.arange(0, GROUP)
    x = tl.load(x_ptr + row * stride_xm + cols * stride_xn).to(tl.float32)
    w = tl.load(w_ptr + cols).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / GROUP + eps)
    tl.store(out_ptr + row * stride_om + cols, (x * rstd * w).to(out_ptr.dtype.element_ty))


def group_rmsnorm(x, weight):
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    group = N // GROUPS
    group_rmsnorm_kernel[(M, GROUPS)](x, weight, out, x.stride(0), x.stride(1), out.stride(0), EPS, GROUP=group)
    return out


def reference(x, weight):
    M, N = x.shape
    xg = x.reshape(M, GROUPS, N // GROUPS)
    y = xg * torch.rsqrt(xg.pow(2).mean(-1, keepdim=True) + EPS)
    return y.reshape(M, N) * weight


spec = kcheck.Spec(
    name="hx4_group_rmsnorm",
    kernel=group_rmsnorm,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", name="weight")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=256, multiple_of=GROUPS, real=(2880,))},
    reduce=["N"],
)

BUG_CLASS = "kernel-raises"
