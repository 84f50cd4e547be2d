"""Spike counting by upward threshold crossings of membrane-potential traces (neuroscience): for each neuron (row)
of v [neurons, samples], the number of samples j >= 1 with v[j - 1] < threshold <= v[j].

Each program counts BLOCK_M rows, walking the samples in BLOCK_N chunks; every chunk loads the samples and their
predecessors (column j - 1) and counts the crossings in int32. The count is returned in the input dtype. Row
offsets are int64; any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "off-by-one-mask"


@triton.jit
def crossings_kernel(v_ptr, out_ptr, M, N, threshold, s_m, s_n,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    row_ptr = v_ptr + rows[:, None] * s_m
    count = tl.zeros([BLOCK_M], dtype=tl.int32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        valid = (cols >= 1) & (cols <= N)
        mask = row_mask[:, None] & valid[None, :]
        cur = tl.load(row_ptr + cols[None, :] * s_n, mask=mask, other=0.0).to(tl.float32)
        prev = tl.load(row_ptr + (cols - 1)[None, :] * s_n, mask=mask, other=0.0).to(tl.float32)
        up = (prev < threshold) & (cur >= threshold) & mask
        count += tl.sum(up.to(tl.int32), axis=1)
    tl.store(out_ptr + rows, count.to(out_ptr.dtype.element_ty), mask=row_mask)


def spike_threshold_crossings(v: torch.Tensor, threshold: float = 0.5, BLOCK_N: int = 256) -> torch.Tensor:
    M, N = v.shape
    out = torch.empty((M,), dtype=v.dtype, device=v.device)
    if M == 0:
        return out
    block_n = min(BLOCK_N, triton.next_power_of_2(max(N, 2)))
    block_m = max(1, min(2048 // block_n, triton.next_power_of_2(M)))
    crossings_kernel[(triton.cdiv(M, block_m),)](v, out, M, N, threshold, v.stride(0), v.stride(1),
                                               BLOCK_M=block_m, BLOCK_N=block_n)
    return out


def reference(v: torch.Tensor, threshold: float) -> torch.Tensor:
    # the kernel compares in fp32: compare the same fp32 threshold
    thr = torch.tensor(threshold, dtype=torch.float32).item()
    up = (v[:, :-1] < thr) & (v[:, 1:] >= thr)
    return up.sum(-1).to(v.dtype)


spec = kcheck.Spec(
    name="hx37_spike_threshold_crossings",
    kernel=spike_threshold_crossings,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="v")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1000)},
    params={"threshold": [0.5, -1.25]},
    reduce=["N"],
    configs=[{"BLOCK_N": 256}, {"BLOCK_N": 64}],
)
