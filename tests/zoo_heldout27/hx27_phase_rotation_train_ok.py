"""Learned per-feature phase rotation of complex features for training (complex-valued networks, e.g. audio
spectrogram models), with the real and imaginary parts as two tensors:

y_re = x_re cos(theta) - x_im sin(theta),   y_im = x_re sin(theta) + x_im cos(theta)

Triton forward and backward behind an autograd Function. Backward (g_re, g_im the upstream gradients):
dx_re = g_re cos + g_im sin,  dx_im = -g_re sin + g_im cos,
dtheta = sum over rows of (g_re * -y_im + g_im * y_re), each program writing its partial row (deterministic).
"""

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None


@triton.jit
def rot_fwd_kernel(re_ptr, im_ptr, th_ptr, yre_ptr, yim_ptr, M, N, s_rm, s_rn, s_im, s_in, s_t,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    cm = cols < N
    mask = (rows < M)[:, None] & cm[None, :]
    re = tl.load(re_ptr + rows[:, None] * s_rm + cols[None, :] * s_rn, mask=mask, other=0.0).to(tl.float32)
    im = tl.load(im_ptr + rows[:, None] * s_im + cols[None, :] * s_in, mask=mask, other=0.0).to(tl.float32)
    th = tl.load(th_ptr + cols * s_t, mask=cm, other=0.0).to(tl.float32)
    c = tl.cos(th)[None, :]
    s = tl.sin(th)[None, :]
    o = rows[:, None] * N + cols[None, :]
    tl.store(yre_ptr + o, (re * c - im * s).to(yre_ptr.dtype.element_ty), mask=mask)
    tl.store(yim_ptr + o, (re * s + im * c).to(yim_ptr.dtype.element_ty), mask=mask)


@triton.jit
def rot_bwd_kernel(gre_ptr, gim_ptr, re_ptr, im_ptr, th_ptr, dre_ptr, dim_ptr, part_ptr, M, N,
                   s_gm, s_gn, s_hm, s_hn, s_rm, s_rn, s_im, s_in, s_t, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    cm = cols < N
    mask = (rows < M)[:, None] & cm[None, :]
    gre = tl.load(gre_ptr + rows[:, None] * s_gm + cols[None, :] * s_gn, mask=mask, other=0.0).to(tl.float32)
    gim = tl.load(gim_ptr + rows[:, None] * s_hm + cols[None, :] * s_hn, mask=mask, other=0.0).to(tl.float32)
    re = tl.load(re_ptr + rows[:, None] * s_rm + cols[None, :] * s_rn, mask=mask, other=0.0).to(tl.float32)
    im = tl.load(im_ptr + rows[:, None] * s_im + cols[None, :] * s_in, mask=mask, other=0.0).to(tl.float32)
    th = tl.load(th_ptr + cols * s_t, mask=cm, other=0.0).to(tl.float32)
    c = tl.cos(th)[None, :]
    s = tl.sin(th)[None, :]
    o = rows[:, None] * N + cols[None, :]
    tl.store(dre_ptr + o, (gre * c + gim * s).to(dre_ptr.dtype.element_ty), mask=mask)
    tl.store(dim_ptr + o, (gim * c - gre * s).to(dim_ptr.dtype.element_ty), mask=mask)
    yre = re * c - im * s
    yim = re * s + im * c
    dth = tl.where(mask, gim * yre - gre * yim, 0.0)
    tl.store(part_ptr + pid * N + cols, tl.sum(dth, axis=0), mask=cm)


def _blocks(M: int, N: int):
    block_n = triton.next_power_of_2(max(N, 1))
    block_m = max(1, min(2048 // block_n, triton.next_power_of_2(max(M, 1))))
    return block_m, block_n, triton.cdiv(M, block_m)


class PhaseRotation(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, re: torch.Tensor, im: torch.Tensor, theta: torch.Tensor):
        M, N = re.shape
        yre = torch.empty((M, N), dtype=re.dtype, device=re.device)
        yim = torch.empty((M, N), dtype=re.dtype, device=re.device)
        if M and N:
            bm, bn, progs = _blocks(M, N)
            rot_fwd_kernel[(progs,)](re, im, theta, yre, yim, M, N, re.stride(0), re.stride(1), im.stride(0),
                                     im.stride(1), theta.stride(0), BLOCK_M=bm, BLOCK_N=bn)
        ctx.save_for_backward(re, im, theta)
        return yre, yim

    @staticmethod
    def backward(ctx: Any, gre: torch.Tensor, gim: torch.Tensor):
        re, im, theta = ctx.saved_tensors
        M, N = re.shape
        dre = torch.empty((M, N), dtype=re.dtype, device=re.device)
        dim = torch.empty((M, N), dtype=re.dtype, device=re.device)
        if M == 0 or N == 0:
            return dre, dim, torch.zeros_like(theta)
        bm, bn, progs = _blocks(M, N)
        part = torch.empty((progs, N), dtype=torch.float32, device=re.device)
        rot_bwd_kernel[(progs,)](gre, gim, re, im, theta, dre, dim, part, M, N, gre.stride(0), gre.stride(1),
                                 gim.stride(0), gim.stride(1), re.stride(0), re.stride(1), im.stride(0), im.stride(1),
                                 theta.stride(0), BLOCK_M=bm, BLOCK_N=bn)
        return dre, dim, part.sum(0).to(theta.dtype)


def phase_rotation(re: torch.Tensor, im: torch.Tensor, theta: torch.Tensor):
    return PhaseRotation.apply(re, im, theta)


def reference(re: torch.Tensor, im: torch.Tensor, theta: torch.Tensor):
    c, s = torch.cos(theta), torch.sin(theta)
    return re * c - im * s, re * s + im * c


spec = kcheck.Spec(
    name="hx27_phase_rotation_train_ok",
    kernel=phase_rotation,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x_re"), kcheck.Tensor("M", "N", name="x_im"),
            kcheck.Tensor("N", pattern="randn", name="theta")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=128, max=2048, real=())},
    grad=True,
)
