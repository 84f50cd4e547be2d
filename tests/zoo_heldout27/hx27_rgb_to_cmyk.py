"""RGB to CMYK separation (print / prepress), per pixel of an [N, 3] array of RGB rows in [0, 1]:

K = 1 - max(R, G, B);  C = (1 - R - K) / (1 - K),  M = (1 - G - K) / (1 - K),  Y = (1 - B - K) / (1 - K)

A pure black pixel (K = 1) has C = M = Y = 0. Output [N, 4] (C, M, Y, K). BLOCK pixels per program, each
channel read and written with the tensors' strides.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = 'division-by-zero'


@triton.jit
def cmyk_kernel(rgb_ptr, out_ptr, n, s_in, s_ic, s_on, s_oc, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < n
    base = rgb_ptr + offs * s_in
    r = tl.load(base, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(base + s_ic, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(base + 2 * s_ic, mask=mask, other=0.0).to(tl.float32)
    mx = tl.maximum(tl.maximum(r, g, propagate_nan=tl.PropagateNan.ALL), b, propagate_nan=tl.PropagateNan.ALL)
    k = 1.0 - mx
    den = 1.0 - k
    c = (1.0 - r - k) / den
    m = (1.0 - g - k) / den
    y = (1.0 - b - k) / den
    o = out_ptr + offs * s_on
    ty = out_ptr.dtype.element_ty
    tl.store(o, c.to(ty), mask=mask)
    tl.store(o + s_oc, m.to(ty), mask=mask)
    tl.store(o + 2 * s_oc, y.to(ty), mask=mask)
    tl.store(o + 3 * s_oc, k.to(ty), mask=mask)


def rgb_to_cmyk(rgb: torch.Tensor, BLOCK: int = 512) -> torch.Tensor:
    n = rgb.shape[0]
    out = torch.empty((n, 4), dtype=rgb.dtype, device=rgb.device)
    if n:
        cmyk_kernel[(triton.cdiv(n, BLOCK),)](rgb, out, n, rgb.stride(0), rgb.stride(1), out.stride(0),
                                             out.stride(1), BLOCK=BLOCK)
    return out


def reference(rgb: torch.Tensor) -> torch.Tensor:
    r, g, b = rgb.unbind(-1)
    k = 1.0 - torch.maximum(torch.maximum(r, g), b)
    den = torch.where(k != 1.0, 1.0 - k, torch.ones_like(k))
    return torch.stack([(1.0 - r - k) / den, (1.0 - g - k) / den, (1.0 - b - k) / den, k], dim=-1)


spec = kcheck.Spec(
    name="hx27_rgb_to_cmyk",
    kernel=rgb_to_cmyk,
    reference=reference,
    inputs=[kcheck.Tensor("N", 3, name="rgb")],
    dims={"N": kcheck.Dim(nominal=4096, real=())},
    configs=[{"BLOCK": 512}, {"BLOCK": 64}],
)
