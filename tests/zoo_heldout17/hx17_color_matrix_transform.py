"""3x3 colour-matrix transform of RGB pixels with an offset (white balance / colour-space conversion / colour
grading in an image pipeline).

rgb [P, 3], matrix [3, 3], offset [3]: out[p, c] = sum_k matrix[c, k] * rgb[p, k] + offset[c]. One program per
BLOCK_P pixels; the three output channels form a 4-wide (padded) tile, computed in fp32.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "index-transposition"


@triton.jit
def color_matrix_kernel(x_ptr, m_ptr, off_ptr, out_ptr, P, stride_xp, stride_xc, stride_op, stride_oc,
                        BLOCK_P: tl.constexpr):
    pix = tl.program_id(0).to(tl.int64) * BLOCK_P + tl.arange(0, BLOCK_P)
    pmask = pix < P
    ch = tl.arange(0, 4)
    cmask = ch < 3
    acc = tl.zeros([BLOCK_P, 4], dtype=tl.float32)
    for k in tl.static_range(3):
        xk = tl.load(x_ptr + pix * stride_xp + k * stride_xc, mask=pmask, other=0.0).to(tl.float32)
        mk = tl.load(m_ptr + k * 3 + ch, mask=cmask, other=0.0).to(tl.float32)
        acc += xk[:, None] * mk[None, :]
    acc += tl.load(off_ptr + ch, mask=cmask, other=0.0).to(tl.float32)[None, :]
    ptrs = out_ptr + pix[:, None] * stride_op + ch[None, :] * stride_oc
    tl.store(ptrs, acc.to(out_ptr.dtype.element_ty), mask=pmask[:, None] & cmask[None, :])


def color_matrix(rgb, matrix, offset, BLOCK_P=128):
    P = rgb.shape[0]
    matrix = matrix.contiguous()
    out = torch.empty((P, 3), dtype=rgb.dtype, device=rgb.device)
    if P:
        color_matrix_kernel[(triton.cdiv(P, BLOCK_P),)](rgb, matrix, offset, out, P, rgb.stride(0), rgb.stride(1),
                                                        out.stride(0), out.stride(1), BLOCK_P=BLOCK_P)
    return out


def reference(rgb, matrix, offset):
    return rgb @ matrix.T + offset


spec = kcheck.Spec(
    name="hx17_color_matrix_transform",
    kernel=color_matrix,
    reference=reference,
    inputs=[kcheck.Tensor("P", 3, name="rgb"), kcheck.Tensor(3, 3, name="matrix"), kcheck.Tensor(3, name="offset")],
    dims={"P": kcheck.Dim(nominal=4096)},
    configs=[{"BLOCK_P": 128}, {"BLOCK_P": 512}],
)
