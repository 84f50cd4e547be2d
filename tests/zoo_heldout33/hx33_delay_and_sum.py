"""Delay-and-sum beamformer: the output of an array of S sensors steered by integer sample delays::

    y[t] = sum over s of w[s] * x[s, t - d[s]]     (a sensor contributes nothing before its delay has elapsed)

The sensors are split across programs as well as the time axis (arrays of hundreds of hydrophones): each program
sums BLOCK_S sensors over BLOCK_T samples in fp32 and adds its partial beam into an fp32 accumulator with
tl.atomic_add; the beam is returned in the input dtype. Strides honoured, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "uninitialized-accumulator"

MAX_DELAY = 16  # samples


@triton.jit
def delay_and_sum_kernel(x_ptr, d_ptr, w_ptr, acc_ptr, S, T, stride_xs, stride_xt, stride_d, stride_w,
                         BLOCK_S: tl.constexpr, BLOCK_T: tl.constexpr):
    pid_t = tl.program_id(0).to(tl.int64)
    pid_s = tl.program_id(1).to(tl.int64)
    t = pid_t * BLOCK_T + tl.arange(0, BLOCK_T).to(tl.int64)
    s = pid_s * BLOCK_S + tl.arange(0, BLOCK_S).to(tl.int64)
    s_mask = s < S
    d = tl.load(d_ptr + s * stride_d, mask=s_mask, other=0).to(tl.int64)
    w = tl.load(w_ptr + s * stride_w, mask=s_mask, other=0.0).to(tl.float32)
    src = t[None, :] - d[:, None]
    mask = s_mask[:, None] & (t < T)[None, :] & (src >= 0)
    x = tl.load(x_ptr + s[:, None] * stride_xs + src * stride_xt, mask=mask, other=0.0).to(tl.float32)
    beam = tl.sum(x * w[:, None], axis=0)
    tl.atomic_add(acc_ptr + t, beam, mask=t < T)


def delay_and_sum(x: torch.Tensor, delays: torch.Tensor, w: torch.Tensor, BLOCK_S: int = 32,
                  BLOCK_T: int = 128) -> torch.Tensor:
    S, T = x.shape
    acc = torch.empty((T,), dtype=torch.float32, device=x.device)
    if S and T:
        grid = (triton.cdiv(T, BLOCK_T), triton.cdiv(S, BLOCK_S))
        delay_and_sum_kernel[grid](x, delays, w, acc, S, T, x.stride(0), x.stride(1), delays.stride(0),
                                   w.stride(0), BLOCK_S=BLOCK_S, BLOCK_T=BLOCK_T)
    return acc.to(x.dtype)


def reference(x: torch.Tensor, delays: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    S, T = x.shape
    t = torch.arange(T, device=x.device)
    src = t[None, :] - delays[:, None]
    shifted = torch.where(src >= 0, x.gather(1, src.clamp(min=0)), torch.zeros((), dtype=x.dtype, device=x.device))
    return (w[:, None] * shifted).sum(0)


spec = kcheck.Spec(
    name="delay_and_sum",
    kernel=delay_and_sum,
    reference=reference,
    inputs=[kcheck.Tensor("S", "T", name="signals"), kcheck.Index("S", high=MAX_DELAY, name="delays"),
            kcheck.Tensor("S", name="weights")],
    dims={"S": kcheck.Dim(nominal=96), "T": kcheck.Dim(nominal=512)},
    reduce=["S"],
    configs=[{"BLOCK_S": 32, "BLOCK_T": 128}, {"BLOCK_S": 8, "BLOCK_T": 64}],
)
