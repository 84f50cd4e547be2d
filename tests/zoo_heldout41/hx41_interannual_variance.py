"""Interannual variance of a gridded field (oceanography / climate): for Y yearly means at P grid points,
var[p] = (1/Y) sum_y (x[y, p] - mean_p)^2 (population variance), 0 for a single year.

One program per BLOCK_P grid points walks the years in BLOCK_Y chunks (a column reduction) in one pass, on data
shifted by the first year's value (the shifted-data algorithm: sums of d = x - x[0, p] and of d^2, then
var = (S2 - S1^2 / Y) / Y), so a large mean does not cost digits. fp32 accumulation, any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "cancellation"


@triton.jit
def interannual_var_kernel(x_ptr, v_ptr, Y, P, s_xy, s_xp, BLOCK_Y: tl.constexpr, BLOCK_P: tl.constexpr):
    cols = tl.program_id(0).to(tl.int64) * BLOCK_P + tl.arange(0, BLOCK_P).to(tl.int64)
    col_mask = cols < P
    x0 = tl.load(x_ptr + cols * s_xp, mask=col_mask, other=0.0).to(tl.float32)
    s1 = tl.zeros([BLOCK_Y, BLOCK_P], dtype=tl.float32)
    s2 = tl.zeros([BLOCK_Y, BLOCK_P], dtype=tl.float32)
    for start in range(0, Y, BLOCK_Y):
        ys = start + tl.arange(0, BLOCK_Y).to(tl.int64)
        mask = (ys[:, None] < Y) & col_mask[None, :]
        x = tl.load(x_ptr + ys[:, None] * s_xy + cols[None, :] * s_xp, mask=mask, other=0.0).to(tl.float32)
        d = tl.where(mask, x, 0.0)
        s1 += d
        s2 += d * d
    t1 = tl.sum(s1, axis=0)
    t2 = tl.sum(s2, axis=0)
    var = (t2 - t1 * t1 / Y) / Y
    tl.store(v_ptr + cols, var.to(v_ptr.dtype.element_ty), mask=col_mask)


def interannual_variance(x, BLOCK_Y=16, BLOCK_P=64):
    Y, P = x.shape
    v = torch.empty((P,), dtype=x.dtype, device=x.device)
    if P == 0:
        return v
    interannual_var_kernel[(triton.cdiv(P, BLOCK_P),)](x, v, Y, P, x.stride(0), x.stride(1),
                                                       BLOCK_Y=BLOCK_Y, BLOCK_P=BLOCK_P)
    return v


def reference(x):
    return x.var(dim=0, unbiased=False)


spec = kcheck.Spec(
    name="interannual_variance",
    kernel=interannual_variance,
    reference=reference,
    inputs=[kcheck.Tensor("Y", "P", name="x")],
    dims={"Y": kcheck.Dim(nominal=60, min=1), "P": kcheck.Dim(nominal=300)},
    reduce=["Y"],
    configs=[{"BLOCK_Y": 16, "BLOCK_P": 64}, {"BLOCK_Y": 8, "BLOCK_P": 128}],
)
