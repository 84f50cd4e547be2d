"""Pointwise (kernel size 1) Conv1d with bias over channels-first sequences (TCN / WaveNet / Conformer blocks).

x [B, C, L], weight [O, C], bias [O]: out[b, o, l] = sum_c weight[o, c] * x[b, c, l] + bias[o]. One program per
(batch, BLOCK_O x BLOCK_L output tile), a loop over C in steps of BLOCK_C with tl.dot in IEEE fp32 (no TF32) and
an fp32 accumulator; masked on every edge.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None


@triton.jit
def pw_conv1d_kernel(x_ptr, w_ptr, b_ptr, out_ptr, C, O, L, sxb, sxc, sxl, swo, swc, sob, soo, sol,
                     BLOCK_O: tl.constexpr, BLOCK_L: tl.constexpr, BLOCK_C: tl.constexpr):
    pid_b = tl.program_id(0).to(tl.int64)
    o = tl.program_id(1) * BLOCK_O + tl.arange(0, BLOCK_O)
    l = tl.program_id(2) * BLOCK_L + tl.arange(0, BLOCK_L)
    omask = o < O
    lmask = l < L
    acc = tl.zeros([BLOCK_O, BLOCK_L], dtype=tl.float32)
    for c0 in range(0, C, BLOCK_C):
        c = c0 + tl.arange(0, BLOCK_C)
        cmask = c < C
        w = tl.load(w_ptr + o[:, None] * swo + c[None, :] * swc, mask=omask[:, None] & cmask[None, :], other=0.0)
        x = tl.load(x_ptr + pid_b * sxb + c[:, None] * sxc + l[None, :] * sxl, mask=cmask[:, None] & lmask[None, :],
                    other=0.0)
        acc = tl.dot(w.to(tl.float32), x.to(tl.float32), acc, input_precision="ieee")
    acc += tl.load(b_ptr + o, mask=omask, other=0.0).to(tl.float32)[:, None]
    ptrs = out_ptr + pid_b * sob + o[:, None] * soo + l[None, :] * sol
    tl.store(ptrs, acc.to(out_ptr.dtype.element_ty), mask=omask[:, None] & lmask[None, :])


def pointwise_conv1d(x, weight, bias, BLOCK_O=32, BLOCK_L=32, BLOCK_C=16):
    B, C, L = x.shape
    O = weight.shape[0]
    out = torch.empty((B, O, L), dtype=x.dtype, device=x.device)
    if B and O and L:
        grid = (B, triton.cdiv(O, BLOCK_O), triton.cdiv(L, BLOCK_L))
        pw_conv1d_kernel[grid](x, weight, bias, out, C, O, L, x.stride(0), x.stride(1), x.stride(2), weight.stride(0),
                               weight.stride(1), out.stride(0), out.stride(1), out.stride(2),
                               BLOCK_O=BLOCK_O, BLOCK_L=BLOCK_L, BLOCK_C=BLOCK_C)
    return out


def reference(x, weight, bias):
    return torch.einsum("oc,bcl->bol", weight, x) + bias[None, :, None]


spec = kcheck.Spec(
    name="hx17_pointwise_conv1d_ok",
    kernel=pointwise_conv1d,
    reference=reference,
    inputs=[kcheck.Tensor("B", "C", "L", name="x"), kcheck.Tensor("O", "C", name="weight"),
            kcheck.Tensor("O", name="bias")],
    dims={"B": kcheck.Dim(nominal=2, max=4, real=()), "C": kcheck.Dim(nominal=48, max=256, real=(37,)),
          "O": kcheck.Dim(nominal=32, max=64, real=()), "L": kcheck.Dim(nominal=64, max=256, real=())},
    reduce=["C"],
    configs=[{"BLOCK_O": 32, "BLOCK_L": 32, "BLOCK_C": 16}, {"BLOCK_O": 16, "BLOCK_L": 64, "BLOCK_C": 32}],
)
