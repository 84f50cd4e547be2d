"""Audio: short-time RMS envelope of multichannel signals, frames of WIN samples every HOP samples
(rms[c, f] = sqrt(mean(x[c, f*HOP : f*HOP + WIN]^2))), the framing of torch.Tensor.unfold (only whole frames).
Grid: channels x blocks of BLOCK_F frames; each program loads a [BLOCK_F, WIN] tile of overlapping windows and
reduces it in fp32."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "tail-tile-dropped"

WIN = 64
HOP = 16


@triton.jit
def rms_envelope_kernel(x_ptr, out_ptr, N, F, s_xc, s_xn, s_oc, s_of, WIN: tl.constexpr, HOP: tl.constexpr,
                        BLOCK_F: tl.constexpr):
    c = tl.program_id(0).to(tl.int64)
    pid_f = tl.program_id(1).to(tl.int64)
    frames = pid_f * BLOCK_F + tl.arange(0, BLOCK_F).to(tl.int64)
    taps = tl.arange(0, WIN).to(tl.int64)
    frame_mask = frames < F
    idx = frames[:, None] * HOP + taps[None, :]
    mask = frame_mask[:, None] & (idx < N)
    x = tl.load(x_ptr + c * s_xc + idx * s_xn, mask=mask, other=0.0).to(tl.float32)
    rms = tl.sqrt(tl.sum(x * x, axis=1) / WIN)
    tl.store(out_ptr + c * s_oc + frames * s_of, rms.to(out_ptr.dtype.element_ty), mask=frame_mask)


def rms_envelope(x: torch.Tensor, BLOCK_F: int = 16) -> torch.Tensor:
    C, N = x.shape
    F = (N - WIN) // HOP + 1 if N >= WIN else 0
    out = torch.empty((C, F), dtype=x.dtype, device=x.device)
    if C == 0 or F == 0:
        return out
    grid = (C, F // BLOCK_F)
    rms_envelope_kernel[grid](x, out, N, F, x.stride(0), x.stride(1), out.stride(0), out.stride(1),
                              WIN=WIN, HOP=HOP, BLOCK_F=BLOCK_F)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    if x.shape[-1] < WIN:
        return x.new_empty((x.shape[0], 0))
    return x.unfold(-1, WIN, HOP).pow(2).mean(-1).sqrt()


spec = kcheck.Spec(
    name="hx36_rms_envelope_frames",
    kernel=rms_envelope,
    reference=reference,
    inputs=[kcheck.Tensor("C", "N", name="x")],
    dims={"C": kcheck.Dim(nominal=4, max=64), "N": kcheck.Dim(nominal=2000, max=48000)},
    configs=[{"BLOCK_F": 16}, {"BLOCK_F": 64}],
)
