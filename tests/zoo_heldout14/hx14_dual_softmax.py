"""Dual-softmax matching scores (LoFTR, LightGlue-style feature matching): given the similarity matrix S [M, N]
between the descriptors of two images, P = softmax(S / t, dim=0) * softmax(S / t, dim=1), the probability that
i and j pick each other.

Three launches. The row statistics (max and sum of exp per row) and the column statistics (per column) are each
computed by a kernel that loops over the other dimension in square BLOCK x BLOCK tiles, two passes (max, then sum
of exp relative to it); a third kernel writes P tile by tile. Computed in fp32, stored in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-axis"


@triton.jit
def row_stats_kernel(s_ptr, max_ptr, sum_ptr, M, N, inv_t, stride_m, stride_n, BLOCK: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    r_ok = rows < M
    mx = tl.full([BLOCK], float("-inf"), tl.float32)
    for n0 in range(0, N, BLOCK):
        cols = n0 + tl.arange(0, BLOCK)
        mask = r_ok[:, None] & (cols < N)[None, :]
        x = tl.load(s_ptr + rows[:, None] * stride_m + cols[None, :] * stride_n, mask=mask, other=float("-inf"))
        mx = tl.maximum(mx, tl.max(x.to(tl.float32) * inv_t, axis=1))
    sm = tl.zeros([BLOCK], tl.float32)
    for n0 in range(0, N, BLOCK):
        cols = n0 + tl.arange(0, BLOCK)
        mask = r_ok[:, None] & (cols < N)[None, :]
        x = tl.load(s_ptr + rows[:, None] * stride_m + cols[None, :] * stride_n, mask=mask, other=float("-inf"))
        e = tl.where(mask, tl.exp(x.to(tl.float32) * inv_t - mx[:, None]), 0.0)
        sm += tl.sum(e, axis=1)
    tl.store(max_ptr + rows, mx, mask=r_ok)
    tl.store(sum_ptr + rows, sm, mask=r_ok)


@triton.jit
def col_stats_kernel(s_ptr, max_ptr, sum_ptr, M, N, inv_t, stride_m, stride_n, BLOCK: tl.constexpr):
    cols = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    c_ok = cols < N
    mx = tl.full([BLOCK], float("-inf"), tl.float32)
    for m0 in range(0, M, BLOCK):
        rows = m0 + tl.arange(0, BLOCK)
        mask = (rows < M)[:, None] & c_ok[None, :]
        x = tl.load(s_ptr + rows[:, None] * stride_m + cols[None, :] * stride_n, mask=mask, other=float("-inf"))
        mx = tl.maximum(mx, tl.max(x.to(tl.float32) * inv_t, axis=1))
    sm = tl.zeros([BLOCK], tl.float32)
    for m0 in range(0, M, BLOCK):
        rows = m0 + tl.arange(0, BLOCK)
        mask = (rows < M)[:, None] & c_ok[None, :]
        x = tl.load(s_ptr + rows[:, None] * stride_m + cols[None, :] * stride_n, mask=mask, other=float("-inf"))
        e = tl.where(mask, tl.exp(x.to(tl.float32) * inv_t - mx[None, :]), 0.0)
        sm += tl.sum(e, axis=1)
    tl.store(max_ptr + cols, mx, mask=c_ok)
    tl.store(sum_ptr + cols, sm, mask=c_ok)


@triton.jit
def dual_softmax_kernel(s_ptr, rmax_ptr, rsum_ptr, cmax_ptr, csum_ptr, out_ptr, M, N, inv_t, stride_m, stride_n,
                        BLOCK: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    cols = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    r_ok = rows < M
    c_ok = cols < N
    mask = r_ok[:, None] & c_ok[None, :]
    x = tl.load(s_ptr + rows[:, None] * stride_m + cols[None, :] * stride_n, mask=mask, other=0.0)
    z = x.to(tl.float32) * inv_t
    rmax = tl.load(rmax_ptr + rows, mask=r_ok, other=0.0)
    rsum = tl.load(rsum_ptr + rows, mask=r_ok, other=1.0)
    cmax = tl.load(cmax_ptr + cols, mask=c_ok, other=0.0)
    csum = tl.load(csum_ptr + cols, mask=c_ok, other=1.0)
    p = (tl.exp(z - rmax[:, None]) / rsum[:, None]) * (tl.exp(z - cmax[None, :]) / csum[None, :])
    tl.store(out_ptr + rows[:, None] * N + cols[None, :], p.to(out_ptr.dtype.element_ty), mask=mask)


def dual_softmax(scores: torch.Tensor, temperature: float = 0.1, BLOCK: int = 32) -> torch.Tensor:
    M, N = scores.shape
    out = torch.empty((M, N), dtype=scores.dtype, device=scores.device)
    if M == 0 or N == 0:
        return out
    dev, f32 = scores.device, torch.float32
    rmax, rsum = torch.empty(M, dtype=f32, device=dev), torch.empty(M, dtype=f32, device=dev)
    cmax, csum = torch.empty(N, dtype=f32, device=dev), torch.empty(N, dtype=f32, device=dev)
    inv_t = 1.0 / temperature
    sm, sn = scores.stride(0), scores.stride(1)
    row_stats_kernel[(triton.cdiv(M, BLOCK),)](scores, rmax, rsum, M, N, inv_t, sm, sn, BLOCK=BLOCK)
    col_stats_kernel[(triton.cdiv(N, BLOCK),)](scores, cmax, csum, M, N, inv_t, sm, sn, BLOCK=BLOCK)
    dual_softmax_kernel[(triton.cdiv(M, BLOCK), triton.cdiv(N, BLOCK))](scores, rmax, rsum, cmax, csum, out, M, N,
                                                                       inv_t, sm, sn, BLOCK=BLOCK)
    return out


def reference(scores: torch.Tensor, temperature: float = 0.1) -> torch.Tensor:
    z = scores / temperature
    return torch.softmax(z, dim=0) * torch.softmax(z, dim=1)


spec = kcheck.Spec(
    name="hx14_dual_softmax",
    kernel=dual_softmax,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="scores")],
    dims={"M": kcheck.Dim(nominal=256), "N": kcheck.Dim(nominal=192, large=False)},  # grid axis 1: N tiles <= 65535
    reduce=["M", "N"],
    params={"temperature": [0.1, 1.0]},
    configs=[{"BLOCK": 32}, {"BLOCK": 64}],
)
