"""RMSNorm over the channel axis of a channels-first activation (ConvNeXt-style "channels_first" norm, as used on
[B, C, L] conv features): y[b, c, l] = x[b, c, l] / sqrt(mean_c x[b, :, l]^2 + eps) * w[c].

Each program holds all C channels of a BLOCK_L slice of positions in one [BLOCK_C, BLOCK_L] tile (C up to 1024) and
reduces over the channel axis in fp32. int64 offsets.

Planted bug (wrong-axis): the per-channel weight is indexed by the position l instead of the channel c (applied
along the length axis).
"""

import torch
import triton
import triton.language as tl

import kcheck

EPS = 1e-6


@triton.jit
def rmsnorm_cf_kernel(x_ptr, w_ptr, out_ptr, C, L, sxb, sxc, sxl, sw, sob, soc, sol, n_lblocks, eps,
                      BLOCK_C: tl.constexpr, BLOCK_L: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    b = pid // n_lblocks
    ls = (pid % n_lblocks) * BLOCK_L + tl.arange(0, BLOCK_L)
    cs = tl.arange(0, BLOCK_C)
    cmask = cs < C
    lmask = ls < L
    mask = cmask[:, None] & lmask[None, :]
    x = tl.load(x_ptr + b * sxb + cs[:, None] * sxc + ls[None, :] * sxl, mask=mask, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / C + eps)
    w = tl.load(w_ptr + ls[None, :] * sw, mask=lmask[None, :], other=0.0).to(tl.float32)
    y = x * rstd[None, :] * w
    tl.store(out_ptr + b * sob + cs[:, None] * soc + ls[None, :] * sol, y.to(out_ptr.dtype.element_ty), mask=mask)


def rmsnorm_channels_first(x, weight, TILE=4096):
    B, C, L = x.shape
    out = torch.empty((B, C, L), dtype=x.dtype, device=x.device)
    if out.numel() == 0:
        return out
    block_c = triton.next_power_of_2(C)
    block_l = max(1, min(TILE // block_c, triton.next_power_of_2(L)))
    n_lblocks = triton.cdiv(L, block_l)
    rmsnorm_cf_kernel[(B * n_lblocks,)](
        x, weight, out, C, L, x.stride(0), x.stride(1), x.stride(2), weight.stride(0),
        out.stride(0), out.stride(1), out.stride(2), n_lblocks, EPS, BLOCK_C=block_c, BLOCK_L=block_l)
    return out


def reference(x, weight):
    return x * torch.rsqrt(x.pow(2).mean(1, keepdim=True) + EPS) * weight[None, :, None]


spec = kcheck.Spec(
    name="hx11_rmsnorm_channels_first",
    kernel=rmsnorm_channels_first,
    reference=reference,
    inputs=[kcheck.Tensor("B", "C", "L", name="x"), kcheck.Tensor("C", name="weight", pattern="randn")],
    dims={"B": kcheck.Dim(nominal=2), "C": kcheck.Dim(nominal=96, max=1024, real=(37,)),
          "L": kcheck.Dim(nominal=160)},
    reduce=["C"],
    configs=[{"TILE": 4096}, {"TILE": 1024}],
)

BUG_CLASS = "wrong-axis"  # weight indexed along L, not C
