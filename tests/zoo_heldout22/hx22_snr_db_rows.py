"""Signal-to-noise ratio in dB of an estimate against the clean signal, per row (speech enhancement metric).

    snr[m] = 10 * log10((sum_n s[m, n]^2 + EPS) / (sum_n (s[m, n] - e[m, n])^2 + EPS))

One program per row walks the row in BLOCK_N-wide chunks, keeping per-lane fp32 sums of the signal energy and the
error energy, reduced once at the end. EPS keeps silent rows and perfect estimates finite (0 dB / large dB).
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "off-by-one-mask"

EPS = 1e-8
TEN_OVER_LOG2_10 = 3.0102999566398120  # 10 * log10(2): 10 * log10(r) = this * log2(r)


@triton.jit
def snr_db_kernel(s_ptr, e_ptr, out_ptr, N, ssm, ssn, sem, sen, eps, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    s_row = s_ptr + row * ssm
    e_row = e_ptr + row * sem
    sig = tl.zeros([BLOCK_N], dtype=tl.float32)
    err = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = cols <= N
        s = tl.load(s_row + cols * ssn, mask=mask, other=0.0).to(tl.float32)
        e = tl.load(e_row + cols * sen, mask=mask, other=0.0).to(tl.float32)
        d = s - e
        sig += s * s
        err += d * d
    ratio = (tl.sum(sig, axis=0) + eps) / (tl.sum(err, axis=0) + eps)
    tl.store(out_ptr + row, (TEN_OVER_LOG2_10 * tl.log2(ratio)).to(out_ptr.dtype.element_ty))


def snr_db(clean: torch.Tensor, estimate: torch.Tensor, BLOCK_N: int = 256) -> torch.Tensor:
    M, N = clean.shape
    out = torch.empty((M,), dtype=clean.dtype, device=clean.device)
    if M == 0:
        return out
    snr_db_kernel[(M,)](clean, estimate, out, N, clean.stride(0), clean.stride(1), estimate.stride(0),
                        estimate.stride(1), EPS, BLOCK_N=BLOCK_N)
    return out


def reference(clean: torch.Tensor, estimate: torch.Tensor) -> torch.Tensor:
    sig = clean.pow(2).sum(-1)
    err = (clean - estimate).pow(2).sum(-1)
    return 10.0 * torch.log10((sig + EPS) / (err + EPS))


spec = kcheck.Spec(
    name="hx22_snr_db_rows",
    kernel=snr_db,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="clean"), kcheck.Tensor("M", "N", name="estimate")],
    dims={"M": kcheck.Dim(nominal=48, max=64, real=()), "N": kcheck.Dim(nominal=1000, real=(2880, 16000))},
    reduce=["N"],
    configs=[{"BLOCK_N": 256}, {"BLOCK_N": 64}],
)
