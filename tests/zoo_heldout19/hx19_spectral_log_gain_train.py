"""Learnable per-frequency gain on a spectrogram, parametrised in log space, for training:

    y[b, f, t] = exp(w[f]) * s[b, f, t]

Backward, with g the upstream gradient: ds = exp(w[f]) * g, dw[f] = exp(w[f]) * sum over b, t of g * s.
s is [B, F, T] (made contiguous: the kernels index the flat buffer), w is [F]. The forward and ds are one flat
elementwise kernel each; dw is one program per frequency bin, looping over batches and time in fp32."""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-axis"


@triton.jit
def log_gain_fwd_kernel(s_ptr, w_ptr, y_ptr, n, F, T, BLOCK: tl.constexpr):
    j = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = j < n
    f = j % F
    s = tl.load(s_ptr + j, mask=mask, other=0.0).to(tl.float32)
    gain = tl.exp(tl.load(w_ptr + f, mask=mask, other=0.0).to(tl.float32))
    tl.store(y_ptr + j, (gain * s).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def log_gain_dw_kernel(g_ptr, s_ptr, w_ptr, dw_ptr, B, F, T, BLOCK_T: tl.constexpr):
    f = tl.program_id(0).to(tl.int64)
    acc = tl.zeros([BLOCK_T], dtype=tl.float32)
    for b in range(0, B):
        row = (b * F + f) * T
        for start in range(0, T, BLOCK_T):
            t = start + tl.arange(0, BLOCK_T).to(tl.int64)
            mask = t < T
            g = tl.load(g_ptr + row + t, mask=mask, other=0.0).to(tl.float32)
            s = tl.load(s_ptr + row + t, mask=mask, other=0.0).to(tl.float32)
            acc += g * s
    gain = tl.exp(tl.load(w_ptr + f).to(tl.float32))
    tl.store(dw_ptr + f, (gain * tl.sum(acc, axis=0)).to(dw_ptr.dtype.element_ty))


BLOCK = 1024


def log_gain_forward(s: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    B, F, T = s.shape
    s, w = s.contiguous(), w.contiguous()
    y = torch.empty((B, F, T), dtype=s.dtype, device=s.device)
    if s.numel():
        log_gain_fwd_kernel[(triton.cdiv(s.numel(), BLOCK),)](s, w, y, s.numel(), F, T, BLOCK=BLOCK)
    return y


def log_gain_backward(g: torch.Tensor, s: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    B, F, T = s.shape
    g, s, w = g.contiguous(), s.contiguous(), w.contiguous()
    ds = log_gain_forward(g, w)  # the same per-bin scaling, applied to the upstream gradient
    dw = torch.empty((F,), dtype=w.dtype, device=w.device)
    if F:
        if B * T == 0:
            return ds, dw.zero_()
        log_gain_dw_kernel[(F,)](g, s, w, dw, B, F, T, BLOCK_T=256)
    return ds, dw


class LogGainFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, s: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(s, w)
        return log_gain_forward(s, w)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        s, w = ctx.saved_tensors
        return log_gain_backward(g, s, w)


def log_gain(s: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return LogGainFunction.apply(s, w)


def reference(s: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return s * torch.exp(w)[:, None]


spec = kcheck.Spec(
    name="hx19_spectral_log_gain_train",
    kernel=log_gain,
    reference=reference,
    inputs=[kcheck.Tensor("B", "F", "T", name="spectrogram"), kcheck.Tensor("F", pattern="randn", name="log_gain")],
    dims={"B": kcheck.Dim(nominal=3, max=16, real=()), "F": kcheck.Dim(nominal=80, real=()),
          "T": kcheck.Dim(nominal=100, real=())},
    grad=True,
)
