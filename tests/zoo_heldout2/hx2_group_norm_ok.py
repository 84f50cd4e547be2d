"""GroupNorm over (batch, channels, spatial) activations, G groups, per-channel affine:
y = (x - mean_g) / sqrt(var_g + eps) * w[c] + b[c], statistics over the C/G channels x S positions of a group.

One program per (sample, group); a group is a contiguous span of C/G * S elements. Statistics in fp32 in two
passes over data shifted by the group's first element (exact for close values), so a large common offset costs
no precision and a constant group normalizes to exactly 0.
"""

import torch
import triton
import triton.language as tl

import kcheck

GROUPS = 4
EPS = 1e-5


@triton.jit
def group_norm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, C, S, eps, G: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)  # sample * G + group
    g = pid % G
    cg = C // G
    n = cg * S
    base = pid * n
    shift = tl.load(x_ptr + base).to(tl.float32)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n, BLOCK):
        e = start + tl.arange(0, BLOCK).to(tl.int64)
        x = tl.load(x_ptr + base + e, mask=e < n, other=0.0).to(tl.float32)
        acc += tl.where(e < n, x - shift, 0.0)
    mean = tl.sum(acc, axis=0) / n
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n, BLOCK):
        e = start + tl.arange(0, BLOCK).to(tl.int64)
        x = tl.load(x_ptr + base + e, mask=e < n, other=0.0).to(tl.float32)
        d = tl.where(e < n, (x - shift) - mean, 0.0)
        acc += d * d
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / n + eps)
    for start in range(0, n, BLOCK):
        e = start + tl.arange(0, BLOCK).to(tl.int64)
        mask = e < n
        c = g * cg + e // S
        x = tl.load(x_ptr + base + e, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + c, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + c, mask=mask, other=0.0).to(tl.float32)
        y = ((x - shift) - mean) * rstd * w + b
        tl.store(out_ptr + base + e, y.to(out_ptr.dtype.element_ty), mask=mask)


def group_norm(x, weight, bias, BLOCK=1024):
    B, C, S = x.shape
    x = x.contiguous()
    out = torch.empty((B, C, S), dtype=x.dtype, device=x.device)
    if out.numel():
        group_norm_kernel[(B * GROUPS,)](x, weight.contiguous(), bias.contiguous(), out, C, S, EPS,
                                         G=GROUPS, BLOCK=BLOCK)
    return out


def reference(x, w, b):
    B, C, S = x.shape
    g = x.reshape(B, GROUPS, (C // GROUPS) * S)
    mean = g.mean(-1, keepdim=True)
    var = ((g - mean) ** 2).mean(-1, keepdim=True)
    y = ((g - mean) / torch.sqrt(var + EPS)).reshape(B, C, S)
    return y * w[:, None] + b[:, None]


spec = kcheck.Spec(
    name="hx2_group_norm_ok",
    kernel=group_norm,
    reference=reference,
    inputs=[kcheck.Tensor("B", "C", "S"), kcheck.Tensor("C", pattern="randn"), kcheck.Tensor("C", pattern="randn")],
    dims={"B": kcheck.Dim(nominal=2, max=4, real=()), "C": kcheck.Dim(nominal=32, multiple_of=GROUPS, real=(64,)),
          "S": kcheck.Dim(nominal=64, real=(256,))},
    reduce=["S"],
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

BUG_CLASS = None
