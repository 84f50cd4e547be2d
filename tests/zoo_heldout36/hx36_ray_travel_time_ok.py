"""Seismology: cumulative travel time along ray paths, t[r, k] = sum_{j <= k} ds[r, j] * s[r, j], with ds the
length of segment j of ray r and s the slowness of the cell it crosses. One program per ray walks the path in
BLOCK_N chunks: tl.cumsum inside a chunk (fp32), plus the running total carried from the previous chunks.
Strides honoured, int64 offsets."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None


@triton.jit
def travel_time_kernel(ds_ptr, s_ptr, t_ptr, N, s_dr, s_dn, s_sr, s_sn, s_tr, s_tn, BLOCK_N: tl.constexpr):
    ray = tl.program_id(0).to(tl.int64)
    carry = tl.zeros([1], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        k = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = k < N
        ds = tl.load(ds_ptr + ray * s_dr + k * s_dn, mask=mask, other=0.0).to(tl.float32)
        s = tl.load(s_ptr + ray * s_sr + k * s_sn, mask=mask, other=0.0).to(tl.float32)
        t = tl.cumsum(ds * s, axis=0) + carry
        tl.store(t_ptr + ray * s_tr + k * s_tn, t.to(t_ptr.dtype.element_ty), mask=mask)
        carry += tl.sum(ds * s, axis=0)


def ray_travel_time(ds: torch.Tensor, s: torch.Tensor, BLOCK_N: int = 128) -> torch.Tensor:
    R, N = ds.shape
    t = torch.empty((R, N), dtype=ds.dtype, device=ds.device)
    if R == 0 or N == 0:
        return t
    travel_time_kernel[(R,)](ds, s, t, N, ds.stride(0), ds.stride(1), s.stride(0), s.stride(1), t.stride(0),
                             t.stride(1), BLOCK_N=BLOCK_N)
    return t


spec = kcheck.Spec(
    name="hx36_ray_travel_time_ok",
    kernel=ray_travel_time,
    reference=lambda ds, s: torch.cumsum(ds * s, dim=-1),
    inputs=[kcheck.Tensor("R", "N", name="ds"), kcheck.Tensor("R", "N", name="slowness")],
    dims={"R": kcheck.Dim(nominal=48), "N": kcheck.Dim(nominal=700, max=8192)},
    reduce=["N"],
    configs=[{"BLOCK_N": 128}, {"BLOCK_N": 512}],
)
