"""Learned per-feature sigmoid gate (feature selection layer for tabular models), trainable.

    s[n] = sigmoid(g[n]);   y[m, n] = x[m, n] * s[n]
    dx = dy * s;            dg[n] = s[n] * (1 - s[n]) * sum_m dy[m, n] * x[m, n]

Forward: [BLOCK_M, BLOCK_N] tiles on a 1-D grid of tiles. Backward: one program per BLOCK_N columns walks all rows
in BLOCK_M chunks, writing dx and keeping the column sums of dy * x in fp32 (no atomics, deterministic).
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-axis"


@triton.jit
def gate_fwd_kernel(x_ptr, g_ptr, y_ptr, M, N, sxm, sxn, sym, syn, n_tiles_n,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = (pid // n_tiles_n) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = (pid % n_tiles_n) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    rmask = rows < M
    cmask = cols < N
    mask = rmask[:, None] & cmask[None, :]
    x = tl.load(x_ptr + rows[:, None] * sxm + cols[None, :] * sxn, mask=mask, other=0.0).to(tl.float32)
    gate = tl.sigmoid(tl.load(g_ptr + rows, mask=rmask, other=0.0).to(tl.float32))
    y = x * gate[:, None]
    tl.store(y_ptr + rows[:, None] * sym + cols[None, :] * syn, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def gate_bwd_kernel(dy_ptr, x_ptr, g_ptr, dx_ptr, dg_ptr, M, N, sdm, sdn, sxm, sxn, sgm, sgn,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    cmask = cols < N
    gate = tl.sigmoid(tl.load(g_ptr + cols, mask=cmask, other=0.0).to(tl.float32))
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, M, BLOCK_M):
        rows = start + tl.arange(0, BLOCK_M).to(tl.int64)
        mask = (rows < M)[:, None] & cmask[None, :]
        dy = tl.load(dy_ptr + rows[:, None] * sdm + cols[None, :] * sdn, mask=mask, other=0.0).to(tl.float32)
        x = tl.load(x_ptr + rows[:, None] * sxm + cols[None, :] * sxn, mask=mask, other=0.0).to(tl.float32)
        tl.store(dx_ptr + rows[:, None] * sgm + cols[None, :] * sgn, (dy * gate[None, :]).to(dx_ptr.dtype.element_ty),
                 mask=mask)
        acc += tl.sum(dy * x, axis=0)
    tl.store(dg_ptr + cols, (acc * (gate * (1.0 - gate))).to(dg_ptr.dtype.element_ty), mask=cmask)


class FeatureGate(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, g, BLOCK_M, BLOCK_N):
        M, N = x.shape
        y = torch.empty((M, N), dtype=x.dtype, device=x.device)
        ctx.save_for_backward(x, g)
        ctx.blocks = (BLOCK_M, BLOCK_N)
        if M and N:
            n_tiles_n = triton.cdiv(N, BLOCK_N)
            gate_fwd_kernel[(triton.cdiv(M, BLOCK_M) * n_tiles_n,)](
                x, g, y, M, N, x.stride(0), x.stride(1), y.stride(0), y.stride(1), n_tiles_n,
                BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
        return y

    @staticmethod
    def backward(ctx, dy):
        x, g = ctx.saved_tensors
        BLOCK_M, BLOCK_N = ctx.blocks
        M, N = x.shape
        dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
        dg = torch.empty((N,), dtype=g.dtype, device=g.device)
        if N:
            gate_bwd_kernel[(triton.cdiv(N, BLOCK_N),)](
                dy, x, g, dx, dg, M, N, dy.stride(0), dy.stride(1), x.stride(0), x.stride(1), dx.stride(0),
                dx.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
        return dx, dg, None, None


def feature_gate(x, g, BLOCK_M=32, BLOCK_N=64):
    return FeatureGate.apply(x, g, BLOCK_M, BLOCK_N)


def reference(x, g):
    return x * torch.sigmoid(g)


spec = kcheck.Spec(
    name="hx22_feature_gate_train",
    kernel=feature_gate,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", name="gate_logits")],
    dims={"M": kcheck.Dim(nominal=96, real=(1000,)), "N": kcheck.Dim(nominal=48, real=(37, 300))},
    configs=[{"BLOCK_M": 32, "BLOCK_N": 64}, {"BLOCK_M": 64, "BLOCK_N": 16}],
    grad=True,
)
