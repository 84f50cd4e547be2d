"""A-weighting gain in dB at given frequencies (IEC 61672-1), for weighting spectra before loudness estimates.

    R_A(f) = 12194^2 f^4 / ((f^2 + 20.6^2) sqrt((f^2 + 107.7^2)(f^2 + 737.9^2)) (f^2 + 12194^2))
    A(f)   = 20 log10(R_A(f)) + 2.00

Evaluated in the log domain in fp32 (f^4 would underflow for tiny f and overflow for huge ones):
ln R_A = 2 ln 12194 + 4 ln|f| - ln(f^2 + 20.6^2) - ln(f^2 + 107.7^2)/2 - ln(f^2 + 737.9^2)/2 - ln(f^2 + 12194^2).
A(0) = -inf. Flat 1-D launch over the frequencies.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-constant"


@triton.jit
def a_weighting_kernel(f_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    f = tl.load(f_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    f2 = f * f
    ln_ra = (2.0 * tl.log(12194.0) + 4.0 * tl.log(tl.abs(f))
             - tl.log(f2 + 20.6 * 20.6)
             - 0.5 * tl.log(f2 + 107.7 * 107.7)
             - 0.5 * tl.log(f2 + 739.7 * 739.7)
             - tl.log(f2 + 12194.0 * 12194.0))
    a_db = 8.685889638065037 * ln_ra + 2.0  # 20 / ln(10)
    tl.store(out_ptr + offs, a_db.to(out_ptr.dtype.element_ty), mask=mask)


def a_weighting_db(freqs, BLOCK=1024):
    n = freqs.numel()
    out = torch.empty_like(freqs)
    if n:
        a_weighting_kernel[(triton.cdiv(n, BLOCK),)](freqs, out, n, BLOCK=BLOCK)
    return out


def reference(freqs):
    f2 = freqs * freqs
    ra = 12194.0**2 * f2 * f2 / ((f2 + 20.6**2) * torch.sqrt((f2 + 107.7**2) * (f2 + 737.9**2)) * (f2 + 12194.0**2))
    return 20.0 * torch.log10(ra) + 2.0


spec = kcheck.Spec(
    name="hx22_a_weighting_db",
    kernel=a_weighting_db,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="freqs")],
    dims={"N": kcheck.Dim(nominal=2049, real=(8193,))},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)
