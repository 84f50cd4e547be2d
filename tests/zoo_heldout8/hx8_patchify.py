"""ViT patchify: cut each single-channel image x[b] (H, W) into non-overlapping P x P patches and lay them out as
tokens, row-major over the patch grid: out[b, ph * (W/P) + pw, i * P + j] = x[b, ph * P + i, pw * P + j].
One program per (image, row of patches); each program writes that row's W/P tokens (W*P contiguous output
elements) in BLOCK chunks, gathering from x through its strides."""

import torch
import triton
import triton.language as tl

import kcheck

PATCH = 4


@triton.jit
def patchify_kernel(x_ptr, out_ptr, H, W, stride_xb, stride_xh, stride_xw, stride_ob,
                    P: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    n_h = H // P
    n_w = W // P
    b = pid // n_h
    ph = pid % n_h
    row_len = n_w * P * P
    out_row = out_ptr + b * stride_ob + (ph * n_h) * (P * P)
    for start in range(0, row_len, BLOCK):
        e = start + tl.arange(0, BLOCK)
        mask = e < row_len
        pw = e // (P * P)
        r = e % (P * P)
        i = r // P
        j = r % P
        src = x_ptr + b * stride_xb + (ph * P + i) * stride_xh + (pw * P + j) * stride_xw
        tl.store(out_row + e, tl.load(src, mask=mask), mask=mask)


def patchify(x: torch.Tensor, BLOCK: int = 256) -> torch.Tensor:
    B, H, W = x.shape
    assert H % PATCH == 0 and W % PATCH == 0, "image sides must be multiples of the patch size"
    n_h, n_w = H // PATCH, W // PATCH
    out = torch.empty((B, n_h * n_w, PATCH * PATCH), dtype=x.dtype, device=x.device)
    if out.numel() == 0:
        return out
    patchify_kernel[(B * n_h,)](x, out, H, W, x.stride(0), x.stride(1), x.stride(2), out.stride(0),
                                P=PATCH, BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    B, H, W = x.shape
    n_h, n_w = H // PATCH, W // PATCH
    return x.reshape(B, n_h, PATCH, n_w, PATCH).permute(0, 1, 3, 2, 4).reshape(B, n_h * n_w, PATCH * PATCH)


spec = kcheck.Spec(
    name="hx8_patchify",
    kernel=patchify,
    reference=reference,
    inputs=[kcheck.Tensor("B", "H", "W")],
    dims={"B": kcheck.Dim(nominal=4), "H": kcheck.Dim(nominal=32, multiple_of=PATCH),
          "W": kcheck.Dim(nominal=48, multiple_of=PATCH)},
    configs=[{"BLOCK": 256}, {"BLOCK": 64}],
)

BUG_CLASS = "index-transposition"
