"""Dark-object subtraction and reflectance scaling of a multispectral image cube (remote sensing, Chavez 1988).

For a [C, H, W] radiance cube, each band c loses its haze path radiance (the radiance of the darkest objects of
that band, measured beforehand) and is scaled to top-of-atmosphere reflectance:

    rho[c, h, w] = max(L[c, h, w] - L_haze[c], 0) * gain[c],     gain[c] = pi * d^2 / (ESUN[c] * cos(theta_s))

Programs tile the (band, row) pairs by BLOCK_R and the columns by BLOCK_W; band and row of each lane come from the
flat row index. Any strides are accepted; offsets are int64 (the cube of a full scene passes 2**31 elements).
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "int32-overflow"


@triton.jit
def dos_kernel(x_ptr, haze_ptr, gain_ptr, out_ptr, R, H, W, s_xc, s_xh, s_xw, s_hz, s_g, s_oc, s_oh, s_ow,
               BLOCK_R: tl.constexpr, BLOCK_W: tl.constexpr):
    pid_r = tl.program_id(0)
    pid_w = tl.program_id(1).to(tl.int64)
    r = pid_r * BLOCK_R + tl.arange(0, BLOCK_R)
    w = pid_w * BLOCK_W + tl.arange(0, BLOCK_W)
    r_mask = r < R
    mask = r_mask[:, None] & (w < W)[None, :]
    c = r // H
    h = r % H
    x = tl.load(x_ptr + (c * s_xc + h * s_xh)[:, None] + w[None, :] * s_xw, mask=mask, other=0.0).to(tl.float32)
    haze = tl.load(haze_ptr + c * s_hz, mask=r_mask, other=0.0).to(tl.float32)
    gain = tl.load(gain_ptr + c * s_g, mask=r_mask, other=0.0).to(tl.float32)
    d = x - haze[:, None]
    d = tl.where(d < 0.0, 0.0, d)
    y = d * gain[:, None]
    tl.store(out_ptr + (c * s_oc + h * s_oh)[:, None] + w[None, :] * s_ow, y.to(out_ptr.dtype.element_ty), mask=mask)


def dark_object_subtraction(x: torch.Tensor, haze: torch.Tensor, gain: torch.Tensor, BLOCK_R: int = 8,
                            BLOCK_W: int = 128) -> torch.Tensor:
    C, H, W = x.shape
    out = torch.empty((C, H, W), dtype=x.dtype, device=x.device)
    if out.numel() == 0:
        return out
    grid = (triton.cdiv(C * H, BLOCK_R), triton.cdiv(W, BLOCK_W))
    dos_kernel[grid](x, haze, gain, out, C * H, H, W, x.stride(0), x.stride(1), x.stride(2), haze.stride(0),
                     gain.stride(0), out.stride(0), out.stride(1), out.stride(2), BLOCK_R=BLOCK_R, BLOCK_W=BLOCK_W)
    return out


def reference(x: torch.Tensor, haze: torch.Tensor, gain: torch.Tensor) -> torch.Tensor:
    d = x - haze[:, None, None]
    return torch.where(d < 0, 0.0, d) * gain[:, None, None]


spec = kcheck.Spec(
    name="hx39_dark_object_subtraction",
    kernel=dark_object_subtraction,
    reference=reference,
    inputs=[kcheck.Tensor("C", "H", "W", name="radiance"), kcheck.Tensor("C", name="haze"),
            kcheck.Tensor("C", name="gain")],
    dims={"C": kcheck.Dim(nominal=6, max=16), "H": kcheck.Dim(nominal=40), "W": kcheck.Dim(nominal=150, large=False)},
    configs=[{"BLOCK_R": 8, "BLOCK_W": 128}, {"BLOCK_R": 32, "BLOCK_W": 32}],
)
