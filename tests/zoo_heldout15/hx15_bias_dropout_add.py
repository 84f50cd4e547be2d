"""Fused bias + dropout + residual add, the epilogue after an attention or MLP projection in a transformer block:

    out = residual + where(keep, (x + bias) * scale, 0),   scale = 1 / (1 - p)

The keep mask is drawn by the caller (a boolean tensor, as a replayable dropout stores it). A 1-D flat grid over the
M*N elements; each lane splits its flat index into (row, column) and reads every operand through its own strides, so
padded rows need no copy. Offsets are int64.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "edge-guard"


@triton.jit
def bias_dropout_add_kernel(x_ptr, b_ptr, keep_ptr, r_ptr, out_ptr, M, N, scale,
                            s_xm, s_xn, s_b, s_km, s_kn, s_rm, s_rn, s_om, s_on, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < M * N
    row = offs // N
    col = offs % N
    x = tl.load(x_ptr + row * s_xm + col * s_xn, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + col * s_b, mask=mask, other=0.0).to(tl.float32)
    keep = tl.load(keep_ptr + row * s_km + col * s_kn)
    res = tl.load(r_ptr + row * s_rm + col * s_rn, mask=mask, other=0.0).to(tl.float32)
    y = res + tl.where(keep != 0, (x + b) * scale, 0.0)
    tl.store(out_ptr + row * s_om + col * s_on, y.to(out_ptr.dtype.element_ty), mask=mask)


def bias_dropout_add(x, bias, keep, residual, p=0.1, BLOCK=1024, num_warps=4):
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M * N == 0:
        return out
    keep_u8 = keep.view(torch.uint8)
    scale = 1.0 / (1.0 - p)
    bias_dropout_add_kernel[(triton.cdiv(M * N, BLOCK),)](
        x, bias, keep_u8, residual, out, M, N, scale,
        x.stride(0), x.stride(1), bias.stride(0), keep_u8.stride(0), keep_u8.stride(1),
        residual.stride(0), residual.stride(1), out.stride(0), out.stride(1), BLOCK=BLOCK, num_warps=num_warps)
    return out


def reference(x, bias, keep, residual, p=0.1):
    return residual + torch.where(keep, (x + bias) / (1.0 - p), torch.zeros((), dtype=x.dtype))


spec = kcheck.Spec(
    name="hx15_bias_dropout_add",
    kernel=bias_dropout_add,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", name="bias"),
            kcheck.Tensor("M", "N", dtype=torch.bool, density=0.9, name="keep"),
            kcheck.Tensor("M", "N", name="residual")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=768)},
    configs=[{"BLOCK": 1024, "num_warps": 4}, {"BLOCK": 256, "num_warps": 2}],
    params={"p": [0.1, 0.0]},
)
