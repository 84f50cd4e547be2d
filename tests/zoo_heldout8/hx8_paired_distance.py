"""Pairwise (row-paired) Euclidean distance, as torch.nn.functional.pairwise_distance(x1, x2, p=2, eps=1e-6):
out[m] = || x1[m] - x2[m] + eps ||_2. One program per pair; the whole row is read in one block (D up to 4096),
squared differences summed in fp32."""

import torch
import triton
import triton.language as tl

import kcheck

EPS = 1e-6


@triton.jit
def paired_distance_kernel(a_ptr, b_ptr, out_ptr, D, eps, stride_am, stride_ad, stride_bm, stride_bd,
                           BLOCK_D: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_D)
    mask = cols < D
    a = tl.load(a_ptr + row * stride_am + cols * stride_ad, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + row * stride_bm + cols * stride_bd, mask=mask, other=0.0).to(tl.float32)
    d = tl.where(mask, a - b + eps, 0.0)
    tl.store(out_ptr + row, tl.sqrt(tl.sum(d * d, axis=0)).to(out_ptr.dtype.element_ty))


def paired_distance(x1: torch.Tensor, x2: torch.Tensor) -> torch.Tensor:
    M, D = x1.shape
    out = torch.empty(M, dtype=x1.dtype, device=x1.device)
    if M == 0:
        return out
    paired_distance_kernel[(M,)](x1, x2, out, D, EPS, x1.stride(0), x1.stride(1), x2.stride(0), x2.stride(1),
                                 BLOCK_D=D)
    return out


spec = kcheck.Spec(
    name="hx8_paired_distance",
    kernel=paired_distance,
    reference=lambda x1, x2: torch.nn.functional.pairwise_distance(x1, x2, p=2.0, eps=EPS),
    inputs=[kcheck.Tensor("M", "D", name="x1"), kcheck.Tensor("M", "D", name="x2")],
    dims={"M": kcheck.Dim(nominal=128), "D": kcheck.Dim(nominal=256, min=1, max=4096)},
    reduce=["D"],
)

BUG_CLASS = "kernel-raises"
