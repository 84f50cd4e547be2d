"""2-D max pooling, torch.nn.functional.max_pool2d(x, kernel_size=3, stride=2, padding=1) on NCHW: one lane per
output element scans its 3x3 window (positions in the padding count as -inf); NaN wins the max, as in torch.
Strides honoured on the input; the output is contiguous."""

import torch
import triton
import triton.language as tl

import kcheck

K, S, P = 3, 2, 1


@triton.jit
def max_pool2d_kernel(x_ptr, out_ptr, total, C, H, W, OH, OW, stride_b, stride_c, stride_h, stride_w,
                      K: tl.constexpr, S: tl.constexpr, P: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < total
    ow = offs % OW
    t = offs // OW
    oh = t % OH
    t = t // OH
    c = t % C
    b = t // C
    base = x_ptr + b * stride_b + c * stride_c
    best = tl.full([BLOCK], -float("inf"), dtype=tl.float32)
    for kh in tl.static_range(K):
        ih = oh * S - P + kh
        for kw in tl.static_range(K):
            iw = ow * S - P + kw
            inside = mask & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
            v = tl.load(base + ih * stride_h + iw * stride_w, mask=inside, other=-float("inf")).to(tl.float32)
            best = tl.where((v > best) | (v != v), v, best)
    tl.store(out_ptr + offs, best.to(out_ptr.dtype.element_ty), mask=mask)


def max_pool2d(x: torch.Tensor, BLOCK: int = 512) -> torch.Tensor:
    B, C, H, W = x.shape
    OH = (H + 2 * P - K) // S + 1
    OW = (W + 2 * P - K) // S + 1
    out = torch.empty((B, C, OH, OW), dtype=x.dtype, device=x.device)
    total = out.numel()
    if total:
        max_pool2d_kernel[(triton.cdiv(total, BLOCK),)](
            x, out, total, C, H, W, OH, OW, x.stride(0), x.stride(1), x.stride(2), x.stride(3),
            K=K, S=S, P=P, BLOCK=BLOCK)
    return out


spec = kcheck.Spec(
    name="hx6_max_pool2d_ok",
    kernel=max_pool2d,
    reference=lambda x: torch.nn.functional.max_pool2d(x, kernel_size=K, stride=S, padding=P),
    inputs=[kcheck.Tensor("B", "C", "H", "W")],
    dims={"B": kcheck.Dim(nominal=2, min=1), "C": kcheck.Dim(nominal=16, min=1),
          "H": kcheck.Dim(nominal=32, min=1), "W": kcheck.Dim(nominal=32, min=1)},
    configs=[{"BLOCK": 512}, {"BLOCK": 64}],
)

BUG_CLASS = None
