"""Gradient accumulation over micro-batches: out = scale * sum_b G[b, :] (scale = 1 / accumulation steps, or a
loss-scale correction). The B micro-batch gradients are split over SPLIT programs along B and BLOCK_N columns;
each program sums its rows in fp32 and atomically adds the partial into an fp32 workspace, and a second kernel
scales the workspace into the output dtype."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "uninitialized-accumulator"


@triton.jit
def partial_sum_kernel(g_ptr, ws_ptr, B, N, ROWS_PER_SPLIT, s_gb, s_gn, BLOCK_N: tl.constexpr,
                       BLOCK_B: tl.constexpr):
    cols = tl.program_id(0).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    b_lo = tl.program_id(1).to(tl.int64) * ROWS_PER_SPLIT
    b_hi = tl.minimum(b_lo + ROWS_PER_SPLIT, B)
    col_ok = cols < N
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for b0 in range(b_lo, b_hi, BLOCK_B):
        rows = b0 + tl.arange(0, BLOCK_B).to(tl.int64)
        m = (rows < b_hi)[:, None] & col_ok[None, :]
        g = tl.load(g_ptr + rows[:, None] * s_gb + cols[None, :] * s_gn, mask=m, other=0.0).to(tl.float32)
        acc += tl.sum(g, axis=0)
    tl.atomic_add(ws_ptr + cols, acc, mask=col_ok)


@triton.jit
def finalize_kernel(ws_ptr, out_ptr, N, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    tl.store(out_ptr + offs, (tl.load(ws_ptr + offs, mask=m) * scale).to(out_ptr.dtype.element_ty), mask=m)


def microbatch_grad_sum(g: torch.Tensor, scale: float, BLOCK_N: int = 256, SPLIT: int = 4) -> torch.Tensor:
    B, N = g.shape
    out = torch.empty((N,), dtype=g.dtype, device=g.device)
    if N == 0:
        return out
    ws = torch.empty((N,), dtype=torch.float32, device=g.device)
    rows_per_split = max(1, triton.cdiv(B, SPLIT))
    splits = triton.cdiv(B, rows_per_split) if B else 0
    if splits:
        partial_sum_kernel[(triton.cdiv(N, BLOCK_N), splits)](g, ws, B, N, rows_per_split, g.stride(0), g.stride(1),
                                                              BLOCK_N=BLOCK_N, BLOCK_B=16)
    finalize_kernel[(triton.cdiv(N, 1024),)](ws, out, N, scale, BLOCK=1024)
    return out


spec = kcheck.Spec(
    name="hx16_microbatch_grad_sum",
    kernel=microbatch_grad_sum,
    reference=lambda g, scale: g.sum(0) * scale,
    inputs=[kcheck.Tensor("B", "N", name="grads")],
    dims={"B": kcheck.Dim(nominal=16, large=False), "N": kcheck.Dim(nominal=4096)},
    reduce=["B"],
    params={"scale": [0.0625, 1.0]},
    configs=[{"BLOCK_N": 256, "SPLIT": 4}, {"BLOCK_N": 64, "SPLIT": 1}],
    properties=[kcheck.props.linear()],
)
