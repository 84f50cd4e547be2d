"""Equal-temperament pitch to frequency (synthesis, tuning analysis): f = a4 * 2^((m - 69) / 12) for fractional
MIDI note numbers m (pitch bends included), with the reference pitch a4 as a mode (440 Hz concert pitch, 432 Hz).
Written as a4 * exp((m - 69) * ln(2) / 12) in fp32; BLOCK notes per program, int64 offsets, stride honoured."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-constant"


@triton.jit
def midi_to_freq_kernel(m_ptr, out_ptr, N, a4, s_m, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < N
    m = tl.load(m_ptr + offs * s_m, mask=mask, other=69.0).to(tl.float32)
    semitone = 0.08333333333333333  # ln(2) / 12: one equal-tempered semitone in nepers
    f = a4 * tl.exp((m - 69.0) * semitone)
    tl.store(out_ptr + offs, f.to(out_ptr.dtype.element_ty), mask=mask)


def midi_to_frequency(m: torch.Tensor, a4: float = 440.0, BLOCK: int = 512) -> torch.Tensor:
    N = m.shape[0]
    out = torch.empty((N,), dtype=m.dtype, device=m.device)
    if N == 0:
        return out
    midi_to_freq_kernel[(triton.cdiv(N, BLOCK),)](m, out, N, a4, m.stride(0), BLOCK=BLOCK)
    return out


def reference(m: torch.Tensor, a4: float = 440.0) -> torch.Tensor:
    return a4 * torch.pow(2.0, (m - 69.0) / 12.0)


spec = kcheck.Spec(
    name="hx31_midi_to_frequency",
    kernel=midi_to_frequency,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="note")],
    params={"a4": [440.0, 432.0]},
    dims={"N": kcheck.Dim(nominal=5000)},
    configs=[{"BLOCK": 512}, {"BLOCK": 128}],
)
