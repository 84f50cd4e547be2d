"""Normalised cross-correlation scores for template matching (photogrammetry, image matching): for M candidate
pairs of flattened patches a[m, :] and b[m, :] of P pixels each,

    ncc[m] = sum (a - mean a)(b - mean b) / sqrt(sum (a - mean a)^2 * sum (b - mean b)^2)

and 0 for a pair where either patch is flat (no texture: the correlation is undefined and the match is rejected).
Two passes over the pixels in BLOCK_P-wide chunks: the means (of the patch shifted by its first pixel, so that
bright patches keep their digits), then the centred sums, whose products are accumulated in fp64 (squared
intensities of faint patches would underflow fp32). The score is returned in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "division-by-zero"


@triton.jit
def ncc_kernel(a_ptr, b_ptr, out_ptr, M, P, stride_am, stride_ap, stride_bm, stride_bp,
               BLOCK_M: tl.constexpr, BLOCK_P: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    a_row = a_ptr + rows[:, None] * stride_am
    b_row = b_ptr + rows[:, None] * stride_bm
    a0 = tl.load(a_row, mask=row_mask[:, None], other=0.0).to(tl.float32)
    b0 = tl.load(b_row, mask=row_mask[:, None], other=0.0).to(tl.float32)
    sum_a = tl.zeros([BLOCK_M, BLOCK_P], dtype=tl.float32)
    sum_b = tl.zeros([BLOCK_M, BLOCK_P], dtype=tl.float32)
    for start in range(0, P, BLOCK_P):
        cols = start + tl.arange(0, BLOCK_P).to(tl.int64)
        mask = row_mask[:, None] & (cols < P)[None, :]
        a = tl.load(a_row + cols[None, :] * stride_ap, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_row + cols[None, :] * stride_bp, mask=mask, other=0.0).to(tl.float32)
        sum_a += tl.where(mask, a - a0, 0.0)
        sum_b += tl.where(mask, b - b0, 0.0)
    mean_a = tl.sum(sum_a, axis=1) / P
    mean_b = tl.sum(sum_b, axis=1) / P
    saa = tl.zeros([BLOCK_M, BLOCK_P], dtype=tl.float64)
    sbb = tl.zeros([BLOCK_M, BLOCK_P], dtype=tl.float64)
    sab = tl.zeros([BLOCK_M, BLOCK_P], dtype=tl.float64)
    for start in range(0, P, BLOCK_P):
        cols = start + tl.arange(0, BLOCK_P).to(tl.int64)
        mask = row_mask[:, None] & (cols < P)[None, :]
        a = tl.load(a_row + cols[None, :] * stride_ap, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_row + cols[None, :] * stride_bp, mask=mask, other=0.0).to(tl.float32)
        da = tl.where(mask, (a - a0) - mean_a[:, None], 0.0).to(tl.float64)
        db = tl.where(mask, (b - b0) - mean_b[:, None], 0.0).to(tl.float64)
        saa += da * da
        sbb += db * db
        sab += da * db
    num = tl.sum(sab, axis=1)
    den = tl.sum(saa, axis=1) * tl.sum(sbb, axis=1)
    ncc = num / tl.sqrt(den)
    tl.store(out_ptr + rows, ncc.to(tl.float32).to(out_ptr.dtype.element_ty), mask=row_mask)


def template_ncc(a: torch.Tensor, b: torch.Tensor, BLOCK_P: int = 256, TILE: int = 2048) -> torch.Tensor:
    M, P = a.shape
    out = torch.empty((M,), dtype=a.dtype, device=a.device)
    if M == 0:
        return out
    if P == 0:
        return out.zero_()
    block_p = min(BLOCK_P, triton.next_power_of_2(P))
    block_m = max(1, min(TILE // block_p, triton.next_power_of_2(M)))
    ncc_kernel[(triton.cdiv(M, block_m),)](a, b, out, M, P, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                           BLOCK_M=block_m, BLOCK_P=block_p)
    return out


def reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    ac = a - a.mean(-1, keepdim=True)
    bc = b - b.mean(-1, keepdim=True)
    num = (ac * bc).sum(-1)
    den = (ac * ac).sum(-1) * (bc * bc).sum(-1)
    return torch.where(den > 0, num / torch.sqrt(den), torch.zeros_like(num))


spec = kcheck.Spec(
    name="hx38_template_ncc_scores",
    kernel=template_ncc,
    reference=reference,
    inputs=[kcheck.Tensor("M", "P", name="patch_a"), kcheck.Tensor("M", "P", name="patch_b")],
    dims={"M": kcheck.Dim(nominal=128), "P": kcheck.Dim(nominal=225)},
    reduce=["P"],
    configs=[{"BLOCK_P": 256}, {"BLOCK_P": 64}],
)
