"""DyT, the normalization-free replacement for LayerNorm (Zhu et al., 2025), forward and backward:

    y = gamma * tanh(alpha * x) + beta            (alpha a learned scalar, gamma and beta per feature)

Forward: a 1-D flat grid over the M*N elements. Backward: each program takes BLOCK_M rows, walks the features in
BLOCK_N-wide chunks, writes dx and reduces its rows' share of dgamma, dbeta (per feature) and dalpha (one number),
which it adds into fp32 buffers with atomics. Checked with grad=True; every offset is int64.

    t = tanh(alpha * x);  dx = dy * gamma * alpha * (1 - t^2);  dgamma = sum_rows dy * t;  dbeta = sum_rows dy
    dalpha = sum dy * gamma * x * (1 - t^2)
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "missing-atomic"


@triton.jit
def _tanh_sech2(z):
    """tanh(z) and 1 - tanh(z)^2, both without cancellation (a short series near 0, e = exp(-2|z|) elsewhere)."""
    a = tl.abs(z)
    e = tl.exp(-2.0 * a)
    t_far = (1.0 - e) / (1.0 + e)
    z2 = a * a
    t_near = a * (1.0 + z2 * (-1.0 / 3.0 + z2 * (2.0 / 15.0 - z2 * (17.0 / 315.0))))
    t = tl.where(a < 0.125, t_near, t_far)
    t = tl.where(z < 0, -t, t)
    sech2 = 4.0 * e / ((1.0 + e) * (1.0 + e))
    return t, sech2


@triton.jit
def dyt_fwd_kernel(x_ptr, a_ptr, g_ptr, b_ptr, y_ptr, M, N, s_xm, s_xn, s_g, s_b, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < M * N
    row, col = offs // N, offs % N
    x = tl.load(x_ptr + row * s_xm + col * s_xn, mask=mask, other=0.0).to(tl.float32)
    alpha = tl.load(a_ptr).to(tl.float32)
    g = tl.load(g_ptr + col * s_g, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + col * s_b, mask=mask, other=0.0).to(tl.float32)
    t, _ = _tanh_sech2(alpha * x)
    tl.store(y_ptr + offs, (g * t + b).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def dyt_bwd_kernel(dy_ptr, x_ptr, a_ptr, g_ptr, dx_ptr, dg_ptr, db_ptr, da_ptr, M, N,
                   s_dym, s_dyn, s_xm, s_xn, s_g, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_ok = rows < M
    alpha = tl.load(a_ptr).to(tl.float32)
    da = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        col_ok = cols < N
        mask = row_ok[:, None] & col_ok[None, :]
        dy = tl.load(dy_ptr + rows[:, None] * s_dym + cols[None, :] * s_dyn, mask=mask, other=0.0).to(tl.float32)
        x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
        g = tl.load(g_ptr + cols * s_g, mask=col_ok, other=0.0).to(tl.float32)
        t, sech2 = _tanh_sech2(alpha * x)
        dt = dy * g[None, :] * sech2
        tl.store(dx_ptr + rows[:, None] * N + cols[None, :], (dt * alpha).to(dx_ptr.dtype.element_ty), mask=mask)
        da += tl.where(mask, dt * x, 0.0)
        dg = tl.load(dg_ptr + cols, mask=col_ok, other=0.0)
        tl.store(dg_ptr + cols, dg + tl.sum(tl.where(mask, dy * t, 0.0), axis=0), mask=col_ok)
        tl.atomic_add(db_ptr + cols, tl.sum(dy, axis=0), mask=col_ok)
    tl.atomic_add(da_ptr, tl.sum(tl.sum(da, axis=1), axis=0))


class DyTFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, alpha, gamma, beta, BLOCK=1024, BLOCK_M=8, BLOCK_N=128):
        M, N = x.shape
        y = torch.empty((M, N), dtype=x.dtype, device=x.device)
        if M * N:
            dyt_fwd_kernel[(triton.cdiv(M * N, BLOCK),)](x, alpha, gamma, beta, y, M, N, x.stride(0), x.stride(1),
                                                         gamma.stride(0), beta.stride(0), BLOCK=BLOCK)
        ctx.save_for_backward(x, alpha, gamma)
        ctx.blocks = (BLOCK_M, BLOCK_N)
        return y

    @staticmethod
    def backward(ctx, dy):
        x, alpha, gamma = ctx.saved_tensors
        BLOCK_M, BLOCK_N = ctx.blocks
        M, N = x.shape
        dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
        dg = torch.zeros((N,), dtype=torch.float32, device=x.device)
        db = torch.zeros((N,), dtype=torch.float32, device=x.device)
        da = torch.zeros((1,), dtype=torch.float32, device=x.device)
        if M * N:
            dyt_bwd_kernel[(triton.cdiv(M, BLOCK_M),)](dy, x, alpha, gamma, dx, dg, db, da, M, N,
                                                       dy.stride(0), dy.stride(1), x.stride(0), x.stride(1),
                                                       gamma.stride(0), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
        return dx, da.to(alpha.dtype), dg.to(gamma.dtype), db.to(gamma.dtype), None, None, None


def dyt(x, alpha, gamma, beta, BLOCK=1024, BLOCK_M=8, BLOCK_N=128):
    return DyTFunction.apply(x, alpha, gamma, beta, BLOCK, BLOCK_M, BLOCK_N)


def reference(x, alpha, gamma, beta):
    return gamma * torch.tanh(alpha * x) + beta


spec = kcheck.Spec(
    name="hx15_dyt",
    kernel=dyt,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor(1, name="alpha"), kcheck.Tensor("N", name="gamma"),
            kcheck.Tensor("N", name="beta")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=256)},
    configs=[{"BLOCK": 1024, "BLOCK_M": 8, "BLOCK_N": 128}, {"BLOCK": 256, "BLOCK_M": 4, "BLOCK_N": 64}],
    grad=True,
)
