"""Per-pixel structure tensor of a batch of grayscale images [B, H, W] (corner and orientation analysis, optical
flow): central-difference gradients Ix, Iy with replicated borders (Ix = (I[i, j+1] - I[i, j-1]) / 2, the
neighbours clamped into the image), and the three tensor components Jxx = Ix^2, Jxy = Ix Iy, Jyy = Iy^2 as three
outputs [B, H, W]. One program per (image, [BLOCK_H, BLOCK_W] tile) on a 3-D grid; every tensor's strides passed
explicitly, int64 offsets, fp32 arithmetic."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "stride-assumption"


@triton.jit
def structure_tensor_kernel(img_ptr, jxx_ptr, jxy_ptr, jyy_ptr, H, W, s_b, s_h, s_w, s_ob, s_oh, s_ow,
                            BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    i = tl.program_id(1).to(tl.int64) * BLOCK_H + tl.arange(0, BLOCK_H).to(tl.int64)
    j = tl.program_id(2).to(tl.int64) * BLOCK_W + tl.arange(0, BLOCK_W).to(tl.int64)
    mask = (i < H)[:, None] & (j < W)[None, :]
    base = img_ptr + b * s_b
    i_up = tl.maximum(i - 1, 0)
    i_dn = tl.minimum(i + 1, H - 1)
    j_lt = tl.maximum(j - 1, 0)
    j_rt = tl.minimum(j + 1, W - 1)
    left = tl.load(base + i[:, None] * s_h + j_lt[None, :] * s_w, mask=mask, other=0.0).to(tl.float32)
    right = tl.load(base + i[:, None] * s_h + j_rt[None, :] * s_w, mask=mask, other=0.0).to(tl.float32)
    up = tl.load(base + i_up[:, None] * s_h + j[None, :] * s_w, mask=mask, other=0.0).to(tl.float32)
    down = tl.load(base + i_dn[:, None] * s_h + j[None, :] * s_w, mask=mask, other=0.0).to(tl.float32)
    ix = 0.5 * (right - left)
    iy = 0.5 * (down - up)
    out = b * s_ob + i[:, None] * s_oh + j[None, :] * s_ow
    tl.store(jxx_ptr + out, (ix * ix).to(jxx_ptr.dtype.element_ty), mask=mask)
    tl.store(jxy_ptr + out, (ix * iy).to(jxy_ptr.dtype.element_ty), mask=mask)
    tl.store(jyy_ptr + out, (iy * iy).to(jyy_ptr.dtype.element_ty), mask=mask)


def structure_tensor(img, BLOCK_H=16, BLOCK_W=32):
    B, H, W = img.shape
    jxx, jxy, jyy = (torch.empty((B, H, W), dtype=img.dtype, device=img.device) for _ in range(3))
    if B and H and W:
        grid = (B, triton.cdiv(H, BLOCK_H), triton.cdiv(W, BLOCK_W))
        structure_tensor_kernel[grid](img, jxx, jxy, jyy, H, W, H * W, W, 1,
                                      jxx.stride(0), jxx.stride(1), jxx.stride(2), BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W)
    return jxx, jxy, jyy


def reference(img):
    p = torch.nn.functional.pad(img[:, None], (1, 1, 1, 1), mode="replicate")[:, 0]
    ix = 0.5 * (p[:, 1:-1, 2:] - p[:, 1:-1, :-2])
    iy = 0.5 * (p[:, 2:, 1:-1] - p[:, :-2, 1:-1])
    return ix * ix, ix * iy, iy * iy


spec = kcheck.Spec(
    name="hx25_structure_tensor",
    kernel=structure_tensor,
    reference=reference,
    inputs=[kcheck.Tensor("B", "H", "W", name="img")],
    dims={"B": kcheck.Dim(nominal=3, max=8), "H": kcheck.Dim(nominal=48), "W": kcheck.Dim(nominal=80)},
    configs=[{"BLOCK_H": 16, "BLOCK_W": 32}, {"BLOCK_H": 8, "BLOCK_W": 64}],
)
