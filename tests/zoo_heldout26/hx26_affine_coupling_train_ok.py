"""The affine transform of a Glow coupling layer (Kingma & Dhariwal) for training, given the conditioner's outputs
h (log-scale logits) and t (shift) for the transformed half x, all [M, N]:

    s = sigmoid(h + 2),     y = (x + t) * s,     logdet[m] = sum over n of log s[m, n]

    dx = dt = g * s,     dh = g * (x + t) * s * (1 - s) + gl[m] * (1 - s)

with g the upstream gradient of y and gl that of logdet. sigmoid and log-sigmoid are evaluated on the side where exp
cannot overflow. The forward takes BLOCK_M rows per program and loops over BLOCK_N-wide chunks, the log-determinant
summed in fp32; the backward is elementwise.
"""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None


@triton.jit
def _sigmoid_parts(u):
    e = tl.exp(-tl.abs(u))
    s = tl.where(u >= 0.0, 1.0 / (1.0 + e), e / (1.0 + e))
    log_s = tl.minimum(u, 0.0) - tl.log(1.0 + e)
    return s, log_s


@triton.jit
def coupling_fwd_kernel(x_ptr, h_ptr, t_ptr, y_ptr, ld_ptr, M, N, s_xm, s_xn, s_hm, s_hn, s_tm, s_tn, s_ym, s_yn,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_ok = (rows < M)[:, None]
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for n0 in range(0, N, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N).to(tl.int64)
        m = row_ok & (cols < N)[None, :]
        x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=m, other=0.0).to(tl.float32)
        h = tl.load(h_ptr + rows[:, None] * s_hm + cols[None, :] * s_hn, mask=m, other=0.0).to(tl.float32)
        t = tl.load(t_ptr + rows[:, None] * s_tm + cols[None, :] * s_tn, mask=m, other=0.0).to(tl.float32)
        s, log_s = _sigmoid_parts(h + 2.0)
        tl.store(y_ptr + rows[:, None] * s_ym + cols[None, :] * s_yn, ((x + t) * s).to(y_ptr.dtype.element_ty),
                 mask=m)
        acc += tl.where(m, log_s, 0.0)
    tl.store(ld_ptr + rows, tl.sum(acc, axis=1).to(ld_ptr.dtype.element_ty), mask=rows < M)


@triton.jit
def coupling_bwd_kernel(g_ptr, gl_ptr, x_ptr, h_ptr, t_ptr, dx_ptr, dh_ptr, dt_ptr, M, N,
                        s_gm, s_gn, s_gl, s_xm, s_xn, s_hm, s_hn, s_tm, s_tn,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    m = (rows < M)[:, None] & (cols < N)[None, :]
    g = tl.load(g_ptr + rows[:, None] * s_gm + cols[None, :] * s_gn, mask=m, other=0.0).to(tl.float32)
    gl = tl.load(gl_ptr + rows * s_gl, mask=rows < M, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=m, other=0.0).to(tl.float32)
    h = tl.load(h_ptr + rows[:, None] * s_hm + cols[None, :] * s_hn, mask=m, other=0.0).to(tl.float32)
    t = tl.load(t_ptr + rows[:, None] * s_tm + cols[None, :] * s_tn, mask=m, other=0.0).to(tl.float32)
    s, _ = _sigmoid_parts(h + 2.0)
    gs = g * s
    dh = (gs * (x + t) + gl[:, None]) * (1.0 - s)
    out = rows[:, None] * N + cols[None, :]  # the gradients are fresh contiguous [M, N] tensors
    tl.store(dx_ptr + out, gs.to(dx_ptr.dtype.element_ty), mask=m)
    tl.store(dt_ptr + out, gs.to(dt_ptr.dtype.element_ty), mask=m)
    tl.store(dh_ptr + out, dh.to(dh_ptr.dtype.element_ty), mask=m)


class AffineCoupling(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, h: torch.Tensor, t: torch.Tensor,
                BLOCK_N: int) -> tuple[torch.Tensor, torch.Tensor]:
        M, N = x.shape
        y = torch.empty((M, N), dtype=x.dtype, device=x.device)
        logdet = torch.zeros((M,), dtype=x.dtype, device=x.device)
        if M and N:
            block_m = max(1, min(4096 // BLOCK_N, triton.next_power_of_2(M)))
            coupling_fwd_kernel[(triton.cdiv(M, block_m),)](
                x, h, t, y, logdet, M, N, x.stride(0), x.stride(1), h.stride(0), h.stride(1), t.stride(0),
                t.stride(1), y.stride(0), y.stride(1), BLOCK_M=block_m, BLOCK_N=BLOCK_N)
        ctx.save_for_backward(x, h, t)
        return y, logdet

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor, gl: torch.Tensor) -> tuple[torch.Tensor, ...]:
        x, h, t = ctx.saved_tensors
        M, N = x.shape
        dx, dh, dt = (torch.empty((M, N), dtype=x.dtype, device=x.device) for _ in range(3))
        if M and N:
            grid = (triton.cdiv(M, 16), triton.cdiv(N, 64))
            coupling_bwd_kernel[grid](g, gl, x, h, t, dx, dh, dt, M, N, g.stride(0), g.stride(1), gl.stride(0),
                                      x.stride(0), x.stride(1), h.stride(0), h.stride(1), t.stride(0), t.stride(1),
                                      BLOCK_M=16, BLOCK_N=64)
        return dx, dh, dt, None


def affine_coupling(x: torch.Tensor, h: torch.Tensor, t: torch.Tensor,
                    BLOCK_N: int = 128) -> tuple[torch.Tensor, torch.Tensor]:
    return AffineCoupling.apply(x, h, t, BLOCK_N)


def reference(x: torch.Tensor, h: torch.Tensor, t: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    u = h + 2.0
    return (x + t) * torch.sigmoid(u), torch.nn.functional.logsigmoid(u).sum(-1)


spec = kcheck.Spec(
    name="hx26_affine_coupling_train_ok",
    kernel=affine_coupling,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("M", "N", name="h"), kcheck.Tensor("M", "N", name="t")],
    dims={"M": kcheck.Dim(nominal=48, real=()), "N": kcheck.Dim(nominal=200, real=())},
    reduce=["N"],
    configs=[{"BLOCK_N": 128}, {"BLOCK_N": 32}],
    grad=True,
)
