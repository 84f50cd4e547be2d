"""Generalized-mean (GeM) pooling over the last dimension: out[m] = (mean_n max(x[m, n], eps) ** p) ** (1 / p).

One program per BLOCK_M rows; the row is read in BLOCK_N-wide chunks (loads guarded by the row bound, padding
lanes dropped from the sum), the powers are taken as exp(p * log(v)) in
fp32 and summed in fp32; the result is returned in the input dtype. Row offsets are int64.
"""

import torch
import triton
import triton.language as tl

import kcheck

EPS = 1e-6


@triton.jit
def gem_kernel(x_ptr, out_ptr, M, N, stride_m, stride_n, p,
               EPS_: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]
        x = tl.load(x_ptr + rows[:, None] * stride_m + cols[None, :] * stride_n, mask=row_mask[:, None], other=0.0)
        v = tl.maximum(x.to(tl.float32), EPS_, propagate_nan=tl.PropagateNan.ALL)
        acc += tl.where(mask, tl.exp(p * tl.log(v)), 0.0)
    mean = tl.sum(acc, axis=1) / N
    y = tl.exp(tl.log(mean) / p)
    tl.store(out_ptr + rows, y.to(out_ptr.dtype.element_ty), mask=row_mask)


def gem_pool(x: torch.Tensor, p: float = 3.0, BLOCK_N: int = 512) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty(M, dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    block_m = max(1, min(2048 // block_n, triton.next_power_of_2(M)))
    gem_kernel[(triton.cdiv(M, block_m),)](x, out, M, N, x.stride(0), x.stride(1), p,
                                          EPS_=EPS, BLOCK_M=block_m, BLOCK_N=block_n)
    return out


def reference(x: torch.Tensor, p: float = 3.0) -> torch.Tensor:
    return x.clamp(min=EPS).pow(p).mean(-1).pow(1.0 / p)


spec = kcheck.Spec(
    name="hx10_gem_pool",
    kernel=gem_pool,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1024, min=1)},
    params={"p": [3.0, 2.0]},
    reduce=["N"],
    configs=[{"BLOCK_N": 512}, {"BLOCK_N": 128}],
)

BUG_CLASS = "edge-guard"
