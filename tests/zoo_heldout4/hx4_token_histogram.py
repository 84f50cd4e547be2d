"""Token-frequency histogram: counts[v] = number of t with ids[t] == v, over a vocabulary of V ids (the counts a
frequency penalty or a load-balancing loss needs). One program per BLOCK ids, int32 atomic adds into a zeroed
table, returned as int64 like torch.bincount."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def histogram_kernel(ids_ptr, counts_ptr, T, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < T
    ids = tl.load(ids_ptr + offs, mask=mask, other=0)
    ones = tl.full([BLOCK], 1, dtype=tl.int32)
    tl.atomic_add(counts_ptr + ids, ones, mask=mask)


def token_histogram(ids, num_bins, BLOCK=1024):
    T = ids.shape[0]
    counts = torch.zeros(num_bins, dtype=torch.int32, device=ids.device)
    if T:
        ids = ids.contiguous()
        histogram_kernel[(triton.cdiv(T, BLOCK),)](ids, counts, T, BLOCK=BLOCK)
    return counts.to(torch.int64)


spec = kcheck.Spec(
    name="hx4_token_histogram",
    kernel=token_histogram,
    reference=lambda ids, num_bins: torch.bincount(ids, minlength=num_bins),
    inputs=[kcheck.Index("T", high="V", name="ids"), kcheck.Scalar(lambda dims: dims["V"])],
    dims={"T": kcheck.Dim(nominal=4096), "V": kcheck.Dim(nominal=256)},
    output_shapes=[("V",)],
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

BUG_CLASS = None
