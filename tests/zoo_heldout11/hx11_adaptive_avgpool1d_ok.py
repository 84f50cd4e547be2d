"""Adaptive average pooling over the last axis (torch.nn.functional.adaptive_avg_pool1d): output o of a
[B, C, L] input averages x[b, c, floor(o L / OUT) : ceil((o + 1) L / OUT)] (windows may overlap when L < OUT).

One program per row of B*C on a flat 1-D grid computes all OUT outputs as a [BLOCK_O, BLOCK] tile, walking the
windows in BLOCK-wide chunks (up to the longest window) with fp32 sums; int64 offsets; any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def adaptive_avg_kernel(x_ptr, out_ptr, C, L, OUT, max_win, sxb, sxc, sxl, sob, soc, sol,
                        BLOCK_O: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    b = row // C
    c = row % C
    os_ = tl.arange(0, BLOCK_O).to(tl.int64)
    omask = os_ < OUT
    start = (os_ * L) // OUT
    end = ((os_ + 1) * L + OUT - 1) // OUT
    acc = tl.zeros([BLOCK_O, BLOCK], dtype=tl.float32)
    for s in range(0, max_win, BLOCK):
        ls = start[:, None] + s + tl.arange(0, BLOCK)[None, :]
        mask = omask[:, None] & (ls < end[:, None])
        acc += tl.load(x_ptr + b * sxb + c * sxc + ls * sxl, mask=mask, other=0.0).to(tl.float32)
    y = tl.sum(acc, axis=1) / tl.maximum(end - start, 1).to(tl.float32)
    tl.store(out_ptr + b * sob + c * soc + os_ * sol, y.to(out_ptr.dtype.element_ty), mask=omask)


def adaptive_avg_pool1d(x, output_size=7, BLOCK=64):
    B, C, L = x.shape
    out = torch.empty((B, C, output_size), dtype=x.dtype, device=x.device)
    if out.numel() == 0 or L == 0:
        return out
    max_win = -(-L // output_size) + 1
    adaptive_avg_kernel[(B * C,)](
        x, out, C, L, output_size, max_win, x.stride(0), x.stride(1), x.stride(2), out.stride(0), out.stride(1),
        out.stride(2), BLOCK_O=triton.next_power_of_2(output_size), BLOCK=BLOCK)
    return out


def reference(x, output_size=7):
    return torch.nn.functional.adaptive_avg_pool1d(x, output_size)


spec = kcheck.Spec(
    name="hx11_adaptive_avgpool1d_ok",
    kernel=adaptive_avg_pool1d,
    reference=reference,
    inputs=[kcheck.Tensor("B", "C", "L")],
    dims={"B": kcheck.Dim(nominal=2, max=16), "C": kcheck.Dim(nominal=24), "L": kcheck.Dim(nominal=250, min=1)},
    params={"output_size": [7, 16]},
    reduce=["L"],
    configs=[{"BLOCK": 64}, {"BLOCK": 16}],
)

BUG_CLASS = None
