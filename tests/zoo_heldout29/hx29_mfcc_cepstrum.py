"""Mel-frequency cepstral coefficients from log-mel energies: the orthonormal DCT-II over the B mel bands of each
frame, c[t, k] = s_k sum_m L[t, m] cos(pi k (2m + 1) / (2B)) with s_0 = sqrt(1/B), s_k = sqrt(2/B), keeping the
first C coefficients (13 for speech front ends).

Each program takes BLOCK_T frames and all C coefficients in one tile (BLOCK_C, at least 16 for tl.dot), walks the
bands BLOCK_B at a time and multiplies with the DCT basis built in registers (fp32, IEEE dot). The basis angle is
reduced exactly in integers, k (2m + 1) mod 4B, before it becomes a float, so that high coefficients keep their
accuracy. Frame offsets are int64.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "kernel-raises"


@triton.jit
def mfcc_kernel(l_ptr, out_ptr, T, B, C, s_lt, s_lb, s_ot, s_oc,
                BLOCK_T: tl.constexpr, BLOCK_B: tl.constexpr, BLOCK_C: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    frames = pid * BLOCK_T + tl.arange(0, BLOCK_T).to(tl.int64)
    ks = tl.arange(0, BLOCK_C)
    t_mask = frames < T
    acc = tl.zeros([BLOCK_T, BLOCK_C], dtype=tl.float32)
    step = 3.141592653589793 / (2.0 * B)
    for b0 in range(0, B, BLOCK_B):
        bands = b0 + tl.arange(0, BLOCK_B)
        b_mask = bands < B
        x = tl.load(l_ptr + frames[:, None] * s_lt + bands[None, :] * s_lb, mask=t_mask[:, None] & b_mask[None, :],
                    other=0.0).to(tl.float32)
        idx = (ks[None, :] * (2 * bands[:, None] + 1)) % (4 * B)
        basis = tl.where(b_mask[:, None], tl.cos(idx.to(tl.float32) * step), 0.0)
        acc = tl.dot(x, basis, acc, input_precision="ieee")
    scale = tl.where(ks == 0, tl.sqrt(1.0 / B), tl.sqrt(2.0 / B))
    out = acc * scale[None, :]
    tl.store(out_ptr + frames[:, None] * s_ot + ks[None, :] * s_oc, out.to(out_ptr.dtype.element_ty),
             mask=t_mask[:, None] & (ks < C)[None, :])


def mfcc(log_mel: torch.Tensor, n_ceps: int, out: torch.Tensor, BLOCK_T: int = 32, BLOCK_B: int = 32) -> None:
    T, B = log_mel.shape
    C = n_ceps
    if T == 0 or C == 0:
        return
    if B == 0:
        out.zero_()
        return
    block_c = max(16, C)
    mfcc_kernel[(triton.cdiv(T, BLOCK_T),)](log_mel, out, T, B, C, log_mel.stride(0), log_mel.stride(1),
                                            out.stride(0), out.stride(1),
                                            BLOCK_T=BLOCK_T, BLOCK_B=BLOCK_B, BLOCK_C=block_c)


def reference(log_mel: torch.Tensor, n_ceps: int) -> torch.Tensor:
    B = log_mel.shape[1]
    m = torch.arange(B, dtype=torch.float64, device=log_mel.device)
    k = torch.arange(n_ceps, dtype=torch.float64, device=log_mel.device)
    basis = torch.cos(torch.pi * k[None, :] * (2 * m[:, None] + 1) / (2 * max(B, 1)))
    basis = basis * torch.where(k == 0, (1.0 / max(B, 1)) ** 0.5, (2.0 / max(B, 1)) ** 0.5)[None, :]
    return log_mel @ basis.to(log_mel.dtype)  # in the input's precision: the same-precision baseline


spec = kcheck.Spec(
    name="mfcc_cepstrum",
    kernel=mfcc,
    reference=reference,
    inputs=[kcheck.Tensor("T", "B", name="log_mel"), kcheck.Scalar(lambda d: d["C"], name="n_ceps")],
    outputs=[kcheck.Tensor("T", "C", name="cepstrum")],
    dims={"T": kcheck.Dim(nominal=200), "B": kcheck.Dim(nominal=40), "C": kcheck.Dim(nominal=13)},
    reduce=["B"],
    configs=[{"BLOCK_T": 32, "BLOCK_B": 32}, {"BLOCK_T": 16, "BLOCK_B": 16}],
)
