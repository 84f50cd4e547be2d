"""Signed area of closed polygons (shoelace formula), one polygon per row: vertices (x[m, i], y[m, i]),
i = 0 .. N-1, edges i -> i+1 and N-1 -> 0:

    A[m] = 1/2 * sum_i (x_i * y_{i+1} - x_{i+1} * y_i)

One program per polygon walks the vertices in BLOCK chunks, fp32
accumulation, output (M,) in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def polygon_area_kernel(x_ptr, y_ptr, out_ptr, N, s_xm, s_xn, s_ym, s_yn, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    xr = x_ptr + row * s_xm
    yr = y_ptr + row * s_ym
    cols = tl.arange(0, BLOCK).to(tl.int64)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, N, BLOCK):
        i = start + cols
        nxt = tl.where(i + 1 < N, i + 1, 0)
        m = i < N
        xi = tl.load(xr + i * s_xn, mask=m, other=0.0).to(tl.float32)
        yi = tl.load(yr + i * s_yn, mask=m, other=0.0).to(tl.float32)
        xj = tl.load(xr + nxt * s_xn, mask=m, other=0.0).to(tl.float32)
        yj = tl.load(yr + nxt * s_yn, mask=m, other=0.0).to(tl.float32)
        acc += tl.where(m, xi * yj - xj * yi, 0.0)
    tl.store(out_ptr + row, (0.5 * tl.sum(acc, axis=0)).to(out_ptr.dtype.element_ty))


def polygon_area(x, y, BLOCK=256):
    M, N = x.shape
    out = torch.empty((M,), dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    if N == 0:
        return out.zero_()
    polygon_area_kernel[(M,)](x, y, out, N, x.stride(0), x.stride(1), y.stride(0), y.stride(1), BLOCK=BLOCK)
    return out


def reference(x, y):
    if x.shape[-1] == 0:
        return x.sum(-1)
    x = x - x[:, :1]  # the same sum about the first vertex (translation invariant)
    y = y - y[:, :1]
    return 0.5 * (x * y.roll(-1, dims=-1) - x.roll(-1, dims=-1) * y).sum(-1)


BUG_CLASS = "cancellation"

spec = kcheck.Spec(
    name="hx18_polygon_area",
    kernel=polygon_area,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("M", "N", name="y")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=200)},
    reduce=["N"],
    configs=[{"BLOCK": 256}, {"BLOCK": 64}],
)
