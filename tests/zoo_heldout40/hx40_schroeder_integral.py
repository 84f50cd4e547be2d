"""Schroeder backward integration of room impulse responses (acoustics): the energy decay curve.

h is [M, N]: M impulse responses of N samples. The energy decay curve is EDC[m, n] = sum over k >= n of
h[m, k]^2, the energy still to arrive after sample n (its level in dB gives T20/T30 reverberation times). Each
program owns BLOCK_M responses and walks them from the last BLOCK_N-wide chunk to the first: a reverse scan
(tl.cumsum(reverse=True)) inside the chunk plus the energy of every later chunk carried in fp32.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "stride-assumption"


@triton.jit
def schroeder_kernel(h_ptr, e_ptr, M, N, s_hm, s_hn, s_em, s_en, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < M
    carry = tl.zeros((BLOCK_M,), dtype=tl.float32)
    num_chunks = tl.cdiv(N, BLOCK_N)
    for i in range(0, num_chunks):
        cols = (num_chunks - 1 - i).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
        mask = row_mask[:, None] & (cols < N)[None, :]
        h = tl.load(h_ptr + rows[:, None] * s_hm + cols[None, :] * s_hn, mask=mask, other=0.0).to(tl.float32)
        energy = h * h
        tail = tl.cumsum(energy, axis=1, reverse=True) + carry[:, None]
        tl.store(e_ptr + rows[:, None] * s_em + cols[None, :] * s_en, tail.to(e_ptr.dtype.element_ty), mask=mask)
        carry += tl.sum(energy, axis=1)


def schroeder_integral(h: torch.Tensor, BLOCK_M: int = 4, BLOCK_N: int = 256) -> torch.Tensor:
    M, N = h.shape
    edc = torch.empty((M, N), dtype=h.dtype, device=h.device)
    if M and N:
        schroeder_kernel[(triton.cdiv(M, BLOCK_M),)](h, edc, M, N, N, 1, edc.stride(0),
                                                    edc.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return edc


def reference(h: torch.Tensor) -> torch.Tensor:
    return torch.flip(torch.cumsum(torch.flip(h * h, [-1]), -1), [-1])


spec = kcheck.Spec(
    name="hx40_schroeder_integral",
    kernel=schroeder_integral,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="impulse_response")],
    dims={"M": kcheck.Dim(nominal=12), "N": kcheck.Dim(nominal=3000)},
    reduce=["N"],
    configs=[{"BLOCK_M": 4, "BLOCK_N": 256}, {"BLOCK_M": 16, "BLOCK_N": 64}],
)
