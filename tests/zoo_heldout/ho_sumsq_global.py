"""Global sum of squares of a vector (the squared L2 norm used for gradient clipping): out[0] = sum_i x[i]^2.

Each program reduces a CHUNK of the input in fp32 and folds its partial into an fp32 accumulator that the launcher
zeroes; the result is returned in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "missing-atomic"
GPU_ONLY = False


@triton.jit
def _sumsq_kernel(x_ptr, acc_ptr, n, CHUNK: tl.constexpr, BLOCK: tl.constexpr):
    start = tl.program_id(0).to(tl.int64) * CHUNK
    part = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, CHUNK, BLOCK):
        offs = start + off + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n, other=0.0).to(tl.float32)
        part += x * x
    total = tl.load(acc_ptr) + tl.sum(part, axis=0)
    tl.store(acc_ptr, total)


def sumsq(x: torch.Tensor, CHUNK: int = 8192, BLOCK: int = 1024) -> torch.Tensor:
    x = x.contiguous()
    acc = torch.zeros(1, dtype=torch.float32, device=x.device)
    n = x.numel()
    if n:
        _sumsq_kernel[(triton.cdiv(n, CHUNK),)](x, acc, n, CHUNK=CHUNK, BLOCK=BLOCK)
    return acc.to(x.dtype)


spec = kcheck.Spec(
    name="ho_sumsq_global",
    kernel=sumsq,
    reference=lambda x: (x * x).sum().reshape(1),
    inputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=4096)},
    reduce=["N"],
    configs=[{"CHUNK": 8192, "BLOCK": 1024}, {"CHUNK": 1024, "BLOCK": 256}],
)
