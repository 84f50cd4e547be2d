"""ReGLU, the ReLU-gated linear unit of a transformer MLP (Shazeer, 2020), forward and backward:

    out = relu(a) * b;   da = g * b * [a > 0];   db = g * relu(a)

A 1-D flat grid over the M*N elements in both passes; each lane splits its index into (row, column) and reads every
operand through its strides (the upstream gradient may be strided). relu keeps NaN, and its gradient passes where the
input is NaN, as torch's does. Checked with grad=True.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None


@triton.jit
def reglu_fwd_kernel(a_ptr, b_ptr, out_ptr, M, N, s_am, s_an, s_bm, s_bn, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < M * N
    row, col = offs // N, offs % N
    a = tl.load(a_ptr + row * s_am + col * s_an, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + row * s_bm + col * s_bn, mask=mask, other=0.0).to(tl.float32)
    r = tl.where(a < 0.0, 0.0, a)
    tl.store(out_ptr + offs, (r * b).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def reglu_bwd_kernel(g_ptr, a_ptr, b_ptr, da_ptr, db_ptr, M, N, s_gm, s_gn, s_am, s_an, s_bm, s_bn,
                     BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < M * N
    row, col = offs // N, offs % N
    g = tl.load(g_ptr + row * s_gm + col * s_gn, mask=mask, other=0.0).to(tl.float32)
    a = tl.load(a_ptr + row * s_am + col * s_an, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + row * s_bm + col * s_bn, mask=mask, other=0.0).to(tl.float32)
    r = tl.where(a < 0.0, 0.0, a)
    gb = g * b
    da = tl.where(a <= 0.0, 0.0, gb)
    tl.store(da_ptr + offs, da.to(da_ptr.dtype.element_ty), mask=mask)
    tl.store(db_ptr + offs, (g * r).to(db_ptr.dtype.element_ty), mask=mask)


class ReGLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b, BLOCK=1024):
        M, N = a.shape
        out = torch.empty((M, N), dtype=a.dtype, device=a.device)
        if M * N:
            reglu_fwd_kernel[(triton.cdiv(M * N, BLOCK),)](a, b, out, M, N, a.stride(0), a.stride(1),
                                                           b.stride(0), b.stride(1), BLOCK=BLOCK)
        ctx.save_for_backward(a, b)
        ctx.BLOCK = BLOCK
        return out

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        M, N = a.shape
        da = torch.empty((M, N), dtype=a.dtype, device=a.device)
        db = torch.empty((M, N), dtype=b.dtype, device=b.device)
        if M * N:
            reglu_bwd_kernel[(triton.cdiv(M * N, ctx.BLOCK),)](g, a, b, da, db, M, N, g.stride(0), g.stride(1),
                                                               a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                                               BLOCK=ctx.BLOCK)
        return da, db, None


def reglu(a, b, BLOCK=1024):
    return ReGLU.apply(a, b, BLOCK)


def reference(a, b):
    return torch.relu(a) * b


spec = kcheck.Spec(
    name="hx15_reglu_ok",
    kernel=reglu,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="a"), kcheck.Tensor("M", "N", name="b")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=512)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
    grad=True,
)
