"""Row-wise cosine similarity of two batches of embeddings: cos[m] = a[m].b[m] / max(|a[m]| |b[m]|, eps),
one program per row, the three sums in fp32 over BLOCK_D chunks, result in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "kernel-raises"
GPU_ONLY = False

EPS = 1e-8


@triton.jit
def _cosine_kernel(a_ptr, b_ptr, out_ptr, D, eps, BLOCK_D: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    ab = tl.zeros([BLOCK_D], dtype=tl.float32)
    aa = tl.zeros([BLOCK_D], dtype=tl.float32)
    bb = tl.zeros([BLOCK_D], dtype=tl.float32)
    for start in range(0, D, BLOCK_D):
        d = start + tl.arange(0, BLOCK_D)
        mask = d < D
        a = tl.load(a_ptr + row * D + d, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + row * D + d, mask=mask, other=0.0).to(tl.float32)
        ab += a * b
        aa += a * a
        bb += b * b
    denom = tl.maximum(tl.sqrt(tl.sum(aa, axis=0)) * tl.sqrt(tl.sum(bb, axis=0)), eps)
    tl.store(out_ptr + row, (tl.sum(ab, axis=0) / denom).to(out_ptr.dtype.element_ty))


def cosine_sim(a: torch.Tensor, b: torch.Tensor, BLOCK_D: int = 512) -> torch.Tensor:
    assert a.shape == b.shape, "a and b must have the same shape"
    assert a.is_contiguous() and b.is_contiguous(), "inputs must be contiguous"
    M, D = a.shape
    out = torch.empty(M, dtype=a.dtype, device=a.device)
    if M == 0:
        return out
    block_d = min(BLOCK_D, triton.next_power_of_2(max(D, 1)))
    _cosine_kernel[(M,)](a, b, out, D, EPS, BLOCK_D=block_d)
    return out


def reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return (a * b).sum(-1) / (a.norm(dim=-1) * b.norm(dim=-1)).clamp_min(EPS)


spec = kcheck.Spec(
    name="ho_cosine_sim",
    kernel=cosine_sim,
    reference=reference,
    inputs=[kcheck.Tensor("M", "D"), kcheck.Tensor("M", "D")],
    dims={"M": kcheck.Dim(nominal=128, real=()), "D": kcheck.Dim(nominal=384, real=(768,))},
    reduce=["D"],
    configs=[{"BLOCK_D": 512}, {"BLOCK_D": 128}],
)
