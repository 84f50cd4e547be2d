"""Pixel normalization (ProGAN's PixelNorm) over the channels of a [B, C, S] feature map (S = flattened spatial
positions): y[b, :, s] = x[b, :, s] / sqrt(mean_c x[b, c, s]^2 + 1e-8). One program per batch element and
BLOCK_S positions reduces over C in BLOCK_C steps (fp32), then scales; strides honoured."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def pixel_norm_kernel(x_ptr, out_ptr, C, S, sxb, sxc, sxs, sob, soc, sos,
                      BLOCK_C: tl.constexpr, BLOCK_S: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    ss = tl.program_id(1).to(tl.int64) * BLOCK_S + tl.arange(0, BLOCK_S).to(tl.int64)
    s_mask = ss < S
    acc = tl.zeros([BLOCK_C, BLOCK_S], dtype=tl.float32)
    for c0 in range(0, C, BLOCK_C):
        cs = c0 + tl.arange(0, BLOCK_C).to(tl.int64)
        mask = (cs < C)[:, None] & s_mask[None, :]
        x = tl.load(x_ptr + b * sxb + cs[:, None] * sxc + ss[None, :] * sxs, mask=mask, other=0.0).to(tl.float32)
        acc += x * x
    rnorm = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / C + 1e-6)
    for c0 in range(0, C, BLOCK_C):
        cs = c0 + tl.arange(0, BLOCK_C).to(tl.int64)
        mask = (cs < C)[:, None] & s_mask[None, :]
        x = tl.load(x_ptr + b * sxb + cs[:, None] * sxc + ss[None, :] * sxs, mask=mask, other=0.0).to(tl.float32)
        y = x * rnorm[None, :]
        tl.store(out_ptr + b * sob + cs[:, None] * soc + ss[None, :] * sos, y.to(out_ptr.dtype.element_ty), mask=mask)


def pixel_norm(x: torch.Tensor, BLOCK_C: int = 32, BLOCK_S: int = 64) -> torch.Tensor:
    B, C, S = x.shape
    out = torch.empty((B, C, S), dtype=x.dtype, device=x.device)
    if out.numel():
        pixel_norm_kernel[(B, triton.cdiv(S, BLOCK_S))](x, out, C, S, *x.stride(), *out.stride(),
                                                        BLOCK_C=BLOCK_C, BLOCK_S=BLOCK_S)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return x * torch.rsqrt(x.pow(2).mean(dim=1, keepdim=True) + 1e-8)


spec = kcheck.Spec(
    name="hx6_pixel_norm",
    kernel=pixel_norm,
    reference=reference,
    inputs=[kcheck.Tensor("B", "C", "S")],
    dims={"B": kcheck.Dim(nominal=4), "C": kcheck.Dim(nominal=128), "S": kcheck.Dim(nominal=256)},
    reduce=["C"],
    configs=[{"BLOCK_C": 32, "BLOCK_S": 64}, {"BLOCK_C": 8, "BLOCK_S": 256}],
)

BUG_CLASS = "wrong-constant"
