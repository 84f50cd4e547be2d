"""C-weighted sound level spectrum (acoustics, IEC 61672): add the C-weighting gain of each bin's frequency.

levels is [B, K]: B band spectra of K bins, in dB; freqs is the [K] centre frequency of each bin (Hz). The
C-weighting of frequency f is

    C(f) = 20 log10( f4^2 f^2 / ((f^2 + f1^2) (f^2 + f4^2)) ) + 0.0619 dB,  f1 = 20.598997 Hz, f4 = 12194.217 Hz

(0 dB at 1 kHz), evaluated as a sum of natural logs (no underflow of f^2 for tiny f) times 20 / ln 10 dB per
neper. The kernel computes C on the BLOCK_K frequencies of its tile and adds it to every spectrum's row.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-constant"

DB_PER_NEPER = tl.constexpr(4.342944819032518)  # 20 / ln(10): dB of an amplitude ratio per neper
F1_SQ = tl.constexpr(20.598997 * 20.598997)
F4_SQ = tl.constexpr(12194.217 * 12194.217)
LN_F4 = tl.constexpr(9.40871710194662)  # ln(12194.217)
C1000 = tl.constexpr(0.0619)


@triton.jit
def c_weight_kernel(l_ptr, f_ptr, out_ptr, B, K, s_lb, s_lk, s_f, s_ob, s_ok,
                    BLOCK_B: tl.constexpr, BLOCK_K: tl.constexpr):
    b = tl.program_id(0).to(tl.int64) * BLOCK_B + tl.arange(0, BLOCK_B)
    k = tl.program_id(1).to(tl.int64) * BLOCK_K + tl.arange(0, BLOCK_K)
    k_mask = k < K
    mask = (b < B)[:, None] & k_mask[None, :]
    f = tl.load(f_ptr + k * s_f, mask=k_mask, other=1000.0).to(tl.float32)
    f2 = f * f
    nepers = 2.0 * LN_F4 + 2.0 * tl.log(tl.abs(f)) - tl.log(f2 + F1_SQ) - tl.log(f2 + F4_SQ)
    gain = DB_PER_NEPER * nepers + C1000
    lev = tl.load(l_ptr + b[:, None] * s_lb + k[None, :] * s_lk, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + b[:, None] * s_ob + k[None, :] * s_ok, (lev + gain[None, :]).to(out_ptr.dtype.element_ty),
             mask=mask)


def c_weighted_spectrum(levels: torch.Tensor, freqs: torch.Tensor, BLOCK_B: int = 16,
                        BLOCK_K: int = 128) -> torch.Tensor:
    B, K = levels.shape
    out = torch.empty((B, K), dtype=levels.dtype, device=levels.device)
    if B and K:
        grid = (triton.cdiv(B, BLOCK_B), triton.cdiv(K, BLOCK_K))
        c_weight_kernel[grid](levels, freqs, out, B, K, levels.stride(0), levels.stride(1), freqs.stride(0),
                              out.stride(0), out.stride(1), BLOCK_B=BLOCK_B, BLOCK_K=BLOCK_K)
    return out


def reference(levels: torch.Tensor, freqs: torch.Tensor) -> torch.Tensor:
    f1, f4 = 20.598997, 12194.217
    f2 = freqs * freqs
    gain = 20.0 * torch.log10(f4 * f4 * f2 / ((f2 + f1 * f1) * (f2 + f4 * f4))) + 0.0619
    return levels + gain[None, :]


spec = kcheck.Spec(
    name="hx40_c_weighted_spectrum",
    kernel=c_weighted_spectrum,
    reference=reference,
    inputs=[kcheck.Tensor("B", "K", name="levels"), kcheck.Tensor("K", name="freqs")],
    dims={"B": kcheck.Dim(nominal=64), "K": kcheck.Dim(nominal=513)},
    configs=[{"BLOCK_B": 16, "BLOCK_K": 128}, {"BLOCK_B": 64, "BLOCK_K": 32}],
)
