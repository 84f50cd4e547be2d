"""Segment max and mean pooling (graph readout, ragged batches): the rows of x [N, D] are split into S consecutive
segments of the given lengths (empty segments allowed); out_max[s] is the feature-wise max over the segment's rows
(NaN ignored, as the GPU's max does) and out_mean[s] their mean, both 0 for an empty segment. One program per
(segment, block of features) walks the segment's rows in chunks of BLOCK_R; the segment bounds come from the
exclusive prefix sum of the lengths, computed by the launcher. Row offsets are int64."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "off-by-one-mask"


@triton.jit
def segment_max_mean_kernel(x_ptr, offsets_ptr, max_ptr, mean_ptr, D, s_xn, s_xd, s_mo, s_md, s_ao, s_ad,
                            BLOCK_R: tl.constexpr, BLOCK_D: tl.constexpr):
    seg = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_D + tl.arange(0, BLOCK_D).to(tl.int64)
    col_mask = cols < D
    start = tl.load(offsets_ptr + seg)
    end = tl.load(offsets_ptr + seg + 1)
    best = tl.full([BLOCK_R, BLOCK_D], float("-inf"), dtype=tl.float32)
    total = tl.zeros([BLOCK_R, BLOCK_D], dtype=tl.float32)
    for r0 in range(start, end, BLOCK_R):
        rows = r0 + tl.arange(0, BLOCK_R).to(tl.int64)
        mask = (rows <= end)[:, None] & col_mask[None, :]
        x = tl.load(x_ptr + rows[:, None] * s_xn + cols[None, :] * s_xd, mask=mask, other=0.0).to(tl.float32)
        best = tl.maximum(best, tl.where(mask, x, float("-inf")))
        total += x
    count = (end - start).to(tl.float32)
    seg_max = tl.max(best, axis=0)
    seg_mean = tl.sum(total, axis=0) / tl.maximum(count, 1.0)
    empty = count == 0
    seg_max = tl.where(empty, 0.0, seg_max)
    seg_mean = tl.where(empty, 0.0, seg_mean)
    tl.store(max_ptr + seg * s_mo + cols * s_md, seg_max.to(max_ptr.dtype.element_ty), mask=col_mask)
    tl.store(mean_ptr + seg * s_ao + cols * s_ad, seg_mean.to(mean_ptr.dtype.element_ty), mask=col_mask)


def segment_max_mean(x, lengths, BLOCK_R=16, BLOCK_D=64):
    N, D = x.shape
    S = lengths.shape[0]
    out_max = torch.empty((S, D), dtype=x.dtype, device=x.device)
    out_mean = torch.empty((S, D), dtype=x.dtype, device=x.device)
    if S == 0 or D == 0:
        return out_max, out_mean
    offsets = torch.zeros(S + 1, dtype=torch.int64, device=x.device)
    torch.cumsum(lengths.to(torch.int64), 0, out=offsets[1:])
    grid = (S, triton.cdiv(D, BLOCK_D))
    segment_max_mean_kernel[grid](x, offsets, out_max, out_mean, D, x.stride(0), x.stride(1),
                                  out_max.stride(0), out_max.stride(1), out_mean.stride(0), out_mean.stride(1),
                                  BLOCK_R=BLOCK_R, BLOCK_D=BLOCK_D)
    return out_max, out_mean


def make_lengths(ctx):
    """S segment lengths summing to N: S - 1 random cut points in [0, N], sorted (some segments empty)."""
    N, S = ctx.dims["N"], ctx.dims["S"]
    if S == 0:
        return torch.zeros(0, dtype=torch.int64, device=ctx.device)
    cuts = torch.sort(torch.randint(0, N + 1, (S - 1,), generator=ctx.generator)).values
    bounds = torch.cat([torch.zeros(1, dtype=torch.int64), cuts, torch.full((1,), N, dtype=torch.int64)])
    return (bounds[1:] - bounds[:-1]).to(ctx.device)


def reference(x, lengths):
    S, D = lengths.shape[0], x.shape[1]
    out_max = torch.zeros((S, D), dtype=x.dtype, device=x.device)
    out_mean = torch.zeros((S, D), dtype=x.dtype, device=x.device)
    start = 0
    for s, n in enumerate(lengths.tolist()):
        if n:
            seg = x[start:start + n]
            out_max[s] = torch.where(seg.isnan(), float("-inf"), seg).amax(0)  # NaN ignored, as fmax does
            out_mean[s] = seg.mean(0)
        start += n
    return out_max, out_mean


spec = kcheck.Spec(
    name="hx25_segment_max",
    kernel=segment_max_mean,
    reference=reference,
    inputs=[kcheck.Tensor("N", "D", name="x"), kcheck.Custom(make_lengths, name="lengths", dims=("S",))],
    dims={"N": kcheck.Dim(nominal=1000), "D": kcheck.Dim(nominal=96), "S": kcheck.Dim(nominal=24, max=256)},
    output_shapes=[("S", "D"), ("S", "D")],
    reduce=["N"],
    configs=[{"BLOCK_R": 16, "BLOCK_D": 64}, {"BLOCK_R": 32, "BLOCK_D": 32}],
)
