"""Integral image (summed-area table, Crow / Viola-Jones) of a batch of images [B, H, W]:

    S[b, y, x] = sum of img[b, y', x'] over y' <= y, x' <= x

Two scans: a row pass (prefix sums along x, BLOCK_H rows per program, BLOCK_W-wide chunks joined by a running
carry per row) writes an fp32 intermediate; a column pass (prefix sums along y, BLOCK_W columns per program, a
running carry per column) writes the result in the image's dtype. All sums are fp32; strides are honoured.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "low-precision-accumulation"


@triton.jit
def row_scan_kernel(x_ptr, t_ptr, H, W, s_xb, s_xh, s_xw, s_tb, s_th, s_tw,
                    BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    b = tl.program_id(1).to(tl.int64)
    rows = tl.program_id(0).to(tl.int64) * BLOCK_H + tl.arange(0, BLOCK_H).to(tl.int64)
    row_ok = rows < H
    carry = tl.zeros([BLOCK_H], dtype=tl.float32)
    for c0 in range(0, W, BLOCK_W):
        cols = c0 + tl.arange(0, BLOCK_W).to(tl.int64)
        m = row_ok[:, None] & (cols < W)[None, :]
        x = tl.load(x_ptr + b * s_xb + rows[:, None] * s_xh + cols[None, :] * s_xw, mask=m, other=0.0)
        run = tl.cumsum(x, axis=1) + carry[:, None]
        tl.store(t_ptr + b * s_tb + rows[:, None] * s_th + cols[None, :] * s_tw,
                 run.to(t_ptr.dtype.element_ty), mask=m)
        carry += tl.sum(x, axis=1)


@triton.jit
def col_scan_kernel(t_ptr, out_ptr, H, W, s_tb, s_th, s_tw, s_ob, s_oh, s_ow,
                    BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    b = tl.program_id(1).to(tl.int64)
    cols = tl.program_id(0).to(tl.int64) * BLOCK_W + tl.arange(0, BLOCK_W).to(tl.int64)
    col_ok = cols < W
    carry = tl.zeros([BLOCK_W], dtype=tl.float32)
    for r0 in range(0, H, BLOCK_H):
        rows = r0 + tl.arange(0, BLOCK_H).to(tl.int64)
        m = (rows < H)[:, None] & col_ok[None, :]
        t = tl.load(t_ptr + b * s_tb + rows[:, None] * s_th + cols[None, :] * s_tw, mask=m, other=0.0)
        t = t.to(tl.float32)
        run = tl.cumsum(t, axis=0) + carry[None, :]
        tl.store(out_ptr + b * s_ob + rows[:, None] * s_oh + cols[None, :] * s_ow,
                 run.to(out_ptr.dtype.element_ty), mask=m)
        carry += tl.sum(t, axis=0)


def integral_image(img: torch.Tensor, BLOCK_H: int = 16, BLOCK_W: int = 64) -> torch.Tensor:
    B, H, W = img.shape
    out = torch.empty((B, H, W), dtype=img.dtype, device=img.device)
    if out.numel() == 0:
        return out
    tmp = torch.empty((B, H, W), dtype=torch.float32, device=img.device)
    row_scan_kernel[(triton.cdiv(H, BLOCK_H), B)](img, tmp, H, W, img.stride(0), img.stride(1), img.stride(2),
                                                  tmp.stride(0), tmp.stride(1), tmp.stride(2),
                                                  BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W)
    col_scan_kernel[(triton.cdiv(W, BLOCK_W), B)](tmp, out, H, W, tmp.stride(0), tmp.stride(1), tmp.stride(2),
                                                  out.stride(0), out.stride(1), out.stride(2),
                                                  BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W)
    return out


def reference(img: torch.Tensor) -> torch.Tensor:
    # a half-precision image is summed in fp32 and rounded once, as a careful framework would
    acc = img if img.dtype == torch.float64 else img.float()
    return acc.cumsum(-1).cumsum(-2).to(img.dtype)


spec = kcheck.Spec(
    name="hx26_integral_image",
    kernel=integral_image,
    reference=reference,
    inputs=[kcheck.Tensor("B", "H", "W", name="img")],
    dims={"B": kcheck.Dim(nominal=2, max=3, real=()), "H": kcheck.Dim(nominal=64), "W": kcheck.Dim(nominal=200)},
    reduce=["H", "W"],
    configs=[{"BLOCK_H": 16, "BLOCK_W": 64}, {"BLOCK_H": 32, "BLOCK_W": 32}],
)
