"""Top-k filtering of sampling logits: keep the K largest logits of each row, set the others to -inf
(ties with the k-th largest are kept). One program per row: the row is sorted in registers and the k-th
largest value read off the sorted vector as the threshold."""

import torch
import triton
import triton.language as tl

import kcheck

TOP_K = 8


@triton.jit
def topk_mask_kernel(x_ptr, out_ptr, stride_m, stride_om, V: tl.constexpr, K: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, V)
    x = tl.load(x_ptr + row * stride_m + cols).to(tl.float32)
    s = tl.sort(x, descending=True)
    thresh = tl.max(tl.where(cols == K - 1, s, float("-inf")), axis=0)
    y = tl.where(x >= thresh, x, float("-inf"))
    tl.store(out_ptr + row * stride_om + cols, y.to(out_ptr.dtype.element_ty))


def topk_mask(logits):
    M, V = logits.shape
    logits = logits if logits.stride(1) == 1 else logits.contiguous()
    out = torch.empty((M, V), dtype=logits.dtype, device=logits.device)
    if M:
        topk_mask_kernel[(M,)](logits, out, logits.stride(0), out.stride(0), V=V, K=min(TOP_K, V))
    return out


def reference(x):
    k = min(TOP_K, x.shape[-1])
    thresh = x.topk(k, dim=-1).values[:, -1:]
    return x.masked_fill(x < thresh, float("-inf"))


spec = kcheck.Spec(
    name="hx2_topk_mask",
    kernel=topk_mask,
    reference=reference,
    inputs=[kcheck.Tensor("M", "V")],
    dims={"M": kcheck.Dim(nominal=16, real=()), "V": kcheck.Dim(nominal=256, min=1)},
    patterns=["randn", "zeros", "ones", "eye", "arange", "large", "tiny", "constant", "large_mean"],
)

BUG_CLASS = "kernel-raises"
