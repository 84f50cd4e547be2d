"""MaxPool1d over the last dimension of an (N, C, L) tensor, no padding, no dilation: out[n, c, o] = max over
k < KSIZE of x[n, c, o * STRIDE + k], L_out = (L - KSIZE) // STRIDE + 1. One program per tile of BLOCK_R (n, c)
rows by BLOCK outputs; NaN propagates as in PyTorch."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def maxpool1d_kernel(x_ptr, out_ptr, R, C, L, L_out, stride_xn, stride_xc, stride_xl, stride_on, stride_oc,
                     stride_ol, KSIZE: tl.constexpr, STRIDE: tl.constexpr, BLOCK_R: tl.constexpr,
                     BLOCK: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)
    n = rows // C
    c = rows % C
    o = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = (rows < R)[:, None] & (o < L)[None, :]
    x_rows = x_ptr + (n * stride_xn + c * stride_xc)[:, None]
    best = tl.full([BLOCK_R, BLOCK], -float("inf"), dtype=tl.float32)
    for k in tl.static_range(KSIZE):
        v = tl.load(x_rows + ((o * STRIDE + k) * stride_xl)[None, :], mask=mask, other=-float("inf"))
        best = tl.maximum(best, v.to(tl.float32), propagate_nan=tl.PropagateNan.ALL)
    o_rows = out_ptr + (n * stride_on + c * stride_oc)[:, None]
    tl.store(o_rows + (o * stride_ol)[None, :], best.to(out_ptr.dtype.element_ty), mask=mask)


def maxpool1d(x: torch.Tensor, KSIZE: int = 3, STRIDE: int = 2, BLOCK: int = 128, BLOCK_R: int = 16) -> torch.Tensor:
    N, C, L = x.shape
    L_out = (L - KSIZE) // STRIDE + 1 if L >= KSIZE else 0
    out = torch.empty((N, C, L_out), dtype=x.dtype, device=x.device)
    if out.numel() == 0:
        return out
    grid = (triton.cdiv(N * C, BLOCK_R), triton.cdiv(L_out, BLOCK))
    maxpool1d_kernel[grid](x, out, N * C, C, L, L_out, x.stride(0), x.stride(1), x.stride(2),
                           out.stride(0), out.stride(1), out.stride(2), KSIZE=KSIZE, STRIDE=STRIDE,
                           BLOCK_R=BLOCK_R, BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor, KSIZE: int = 3, STRIDE: int = 2) -> torch.Tensor:
    if x.shape[-1] < KSIZE:
        return x.new_empty((*x.shape[:-1], 0))
    return torch.nn.functional.max_pool1d(x, KSIZE, STRIDE)


spec = kcheck.Spec(
    name="hx3_maxpool1d",
    kernel=maxpool1d,
    reference=reference,
    inputs=[kcheck.Tensor("N", "C", "L")],
    dims={"N": kcheck.Dim(nominal=4), "C": kcheck.Dim(nominal=32), "L": kcheck.Dim(nominal=512)},
    configs=[{"BLOCK": 128}, {"BLOCK": 64, "BLOCK_R": 4}],
)

BUG_CLASS = "edge-guard"
