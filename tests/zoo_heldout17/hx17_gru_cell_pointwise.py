"""Pointwise part of a GRU cell (recurrent nets, as torch.nn.GRUCell computes it after its two matmuls).

gx [B, 3, H] = W_ih x + b_ih and gh [B, 3, H] = W_hh h + b_hh, gates in (r, z, n) order, h [B, H]:
r = sigmoid(gx_r + gh_r), z = sigmoid(gx_z + gh_z), n = tanh(gx_n + r * gh_n), h' = (1 - z) * n + z * h.
2-D grid: one program per (batch row, block of BLOCK_H units); every tensor addressed through its strides.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "stride-assumption"


@triton.jit
def _sigmoid(x):
    return 1.0 / (1.0 + tl.exp(-x))


@triton.jit
def _tanh(x):
    return 2.0 * _sigmoid(2.0 * x) - 1.0


@triton.jit
def gru_pointwise_kernel(gx_ptr, gh_ptr, h_ptr, out_ptr, H,
                         sxb, sxg, sxh, shb, shg, shh, s_hb, s_hh, s_ob, s_oh, BLOCK_H: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    j = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    mask = j < H
    gx = gx_ptr + b * sxb + j * sxh
    gh = gh_ptr + b * shb + j * shh
    xr = tl.load(gx, mask=mask, other=0.0).to(tl.float32)
    xz = tl.load(gx + sxg, mask=mask, other=0.0).to(tl.float32)
    xn = tl.load(gx + 2 * sxg, mask=mask, other=0.0).to(tl.float32)
    hr = tl.load(gh, mask=mask, other=0.0).to(tl.float32)
    hz = tl.load(gh + shg, mask=mask, other=0.0).to(tl.float32)
    hn = tl.load(gh + 2 * shg, mask=mask, other=0.0).to(tl.float32)
    h = tl.load(h_ptr + b * H + j, mask=mask, other=0.0).to(tl.float32)
    r = _sigmoid(xr + hr)
    z = _sigmoid(xz + hz)
    n = _tanh(xn + r * hn)
    h_new = (1.0 - z) * n + z * h
    tl.store(out_ptr + b * s_ob + j * s_oh, h_new.to(out_ptr.dtype.element_ty), mask=mask)


def gru_pointwise(gx, gh, h, BLOCK_H=256):
    B, _, H = gx.shape
    out = torch.empty((B, H), dtype=h.dtype, device=h.device)
    if B and H:
        gru_pointwise_kernel[(B, triton.cdiv(H, BLOCK_H))](
            gx, gh, h, out, H, gx.stride(0), gx.stride(1), gx.stride(2), gh.stride(0), gh.stride(1), gh.stride(2),
            h.stride(0), h.stride(1), out.stride(0), out.stride(1), BLOCK_H=BLOCK_H)
    return out


def reference(gx, gh, h):
    r = torch.sigmoid(gx[:, 0] + gh[:, 0])
    z = torch.sigmoid(gx[:, 1] + gh[:, 1])
    n = torch.tanh(gx[:, 2] + r * gh[:, 2])
    return (1 - z) * n + z * h


spec = kcheck.Spec(
    name="hx17_gru_cell_pointwise",
    kernel=gru_pointwise,
    reference=reference,
    inputs=[kcheck.Tensor("B", 3, "H", name="gx"), kcheck.Tensor("B", 3, "H", name="gh"),
            kcheck.Tensor("B", "H", name="h")],
    dims={"B": kcheck.Dim(nominal=16, max=64, real=()), "H": kcheck.Dim(nominal=256)},
    patterns=["randn", "zeros", "ones", "eye", "arange", "constant", "large_mean"],
    configs=[{"BLOCK_H": 256}, {"BLOCK_H": 64}],
)
