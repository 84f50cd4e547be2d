"""Weighted bincount (a histogram of bin ids with weights): out[b] = sum of w[i] over i with bins[i] == b, for
V bins. The output starts at zero; each program scatters BLOCK (bin, weight) pairs into it in fp32."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def bincount_kernel(bins_ptr, w_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    b = tl.load(bins_ptr + offs, mask=mask, other=0)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    cur = tl.load(out_ptr + b, mask=mask, other=0.0)
    tl.store(out_ptr + b, cur + w, mask=mask)


def weighted_bincount(bins: torch.Tensor, weights: torch.Tensor, num_bins: int, BLOCK: int = 256) -> torch.Tensor:
    out = torch.zeros(num_bins, dtype=torch.float32, device=weights.device)
    n = bins.numel()
    if n:
        bincount_kernel[(triton.cdiv(n, BLOCK),)](bins, weights, out, n, BLOCK=BLOCK)
    return out.to(weights.dtype)


def reference(bins: torch.Tensor, weights: torch.Tensor, num_bins: int) -> torch.Tensor:
    return torch.bincount(bins, weights=weights, minlength=num_bins)


spec = kcheck.Spec(
    name="hx3_weighted_bincount",
    kernel=weighted_bincount,
    reference=reference,
    inputs=[kcheck.Index("N", high="V", name="bins"), kcheck.Tensor("N", name="weights"),
            kcheck.Scalar(lambda d: d["V"], name="num_bins")],
    dims={"N": kcheck.Dim(nominal=8192), "V": kcheck.Dim(nominal=256)},
    reduce=["N"],
    configs=[{"BLOCK": 256}, {"BLOCK": 1024}],
)

BUG_CLASS = "missing-atomic"
