"""Turning-movement counts at a set of intersections (traffic engineering): each detected vehicle t carries the
id of its movement (intersection x approach x turn, in [0, V)) and a passenger-car-equivalent weight; the count of
movement v is the sum of the weights of its vehicles, counts[v] = sum_{t: move[t] = v} pce[t].

BLOCK vehicles per program, scattered with fp32 atomic adds into a zeroed fp32 buffer, cast to the input dtype at
the end.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "missing-atomic"


@triton.jit
def movement_counts_kernel(move_ptr, pce_ptr, acc_ptr, n, s_m, s_p, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < n
    move = tl.load(move_ptr + offs * s_m, mask=mask, other=0)
    pce = tl.load(pce_ptr + offs * s_p, mask=mask, other=0.0).to(tl.float32)
    tl.store(acc_ptr + move, pce, mask=mask)


def turning_movement_counts(move, pce, V, BLOCK=128):
    n = move.shape[0]
    acc = torch.zeros((V,), dtype=torch.float32, device=pce.device)
    if n:
        movement_counts_kernel[(triton.cdiv(n, BLOCK),)](move, pce, acc, n, move.stride(0), pce.stride(0),
                                                         BLOCK=BLOCK)
    return acc.to(pce.dtype)


def reference(move, pce, V):
    return torch.zeros((V,), dtype=pce.dtype, device=pce.device).index_add_(0, move, pce)


spec = kcheck.Spec(
    name="turning_movement_counts",
    kernel=turning_movement_counts,
    reference=reference,
    inputs=[kcheck.Index("T", high="V", name="move"), kcheck.Tensor("T", name="pce"),
            kcheck.Scalar(lambda dims: dims["V"])],
    dims={"T": kcheck.Dim(nominal=4000), "V": kcheck.Dim(nominal=96)},
    reduce=["T"],
    configs=[{"BLOCK": 128}, {"BLOCK": 512}],
)
