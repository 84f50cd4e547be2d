"""Genomics: weighted read coverage of a reference sequence. Read r covers positions start[r] ..
start[r] + length[r] - 1 (clipped at the sequence end) and adds its weight (mapping quality as a probability) to
each. One program per BLOCK_R reads lays out a [BLOCK_R, MAX_LEN] tile of covered positions and adds the weights
with tl.atomic_add into an fp32 coverage track (overlapping reads meet at the same positions)."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "missing-atomic"

MAX_LEN = 64  # longest read, in bases


@triton.jit
def coverage_kernel(start_ptr, len_ptr, w_ptr, cov_ptr, R, G, s_s, s_l, s_w, BLOCK_R: tl.constexpr,
                    MAX_LEN: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    reads = pid * BLOCK_R + tl.arange(0, BLOCK_R).to(tl.int64)
    rmask = reads < R
    start = tl.load(start_ptr + reads * s_s, mask=rmask, other=0).to(tl.int64)
    length = tl.load(len_ptr + reads * s_l, mask=rmask, other=0).to(tl.int64)
    w = tl.load(w_ptr + reads * s_w, mask=rmask, other=0.0).to(tl.float32)
    offs = tl.arange(0, MAX_LEN).to(tl.int64)
    pos = start[:, None] + offs[None, :]
    mask = rmask[:, None] & (offs[None, :] < length[:, None]) & (pos < G)
    wt = tl.broadcast_to(w[:, None], [BLOCK_R, MAX_LEN])
    tl.store(cov_ptr + pos, wt, mask=mask)


def read_coverage(start: torch.Tensor, length: torch.Tensor, weight: torch.Tensor, genome: torch.Tensor,
                  BLOCK_R: int = 32) -> torch.Tensor:
    R, G = start.shape[0], genome.shape[0]
    cov = torch.zeros((G,), dtype=torch.float32, device=start.device)
    if R and G:
        coverage_kernel[(triton.cdiv(R, BLOCK_R),)](start, length, weight, cov, R, G, start.stride(0),
                                                    length.stride(0), weight.stride(0), BLOCK_R=BLOCK_R,
                                                    MAX_LEN=MAX_LEN)
    return cov


def reference(start: torch.Tensor, length: torch.Tensor, weight: torch.Tensor, genome: torch.Tensor) -> torch.Tensor:
    G = genome.shape[0]
    offs = torch.arange(MAX_LEN, device=start.device)
    pos = start[:, None] + offs[None, :]
    valid = (offs[None, :] < length[:, None]) & (pos < G)
    w = weight[:, None].expand(-1, MAX_LEN)
    cov = torch.zeros((G,), dtype=weight.dtype, device=start.device)
    return cov.index_add_(0, pos[valid], w[valid])


spec = kcheck.Spec(
    name="hx36_read_coverage",
    kernel=read_coverage,
    reference=reference,
    inputs=[kcheck.Index("R", high="G", name="start"), kcheck.Index("R", high=MAX_LEN + 1, low=1, name="length"),
            kcheck.Tensor("R", name="weight"), kcheck.Tensor("G", name="genome", grad=False)],
    dims={"R": kcheck.Dim(nominal=400), "G": kcheck.Dim(nominal=1000)},
    output_dtypes=[torch.float32],
    configs=[{"BLOCK_R": 32}, {"BLOCK_R": 8}],
    properties=[kcheck.props.linear(2)],
)
