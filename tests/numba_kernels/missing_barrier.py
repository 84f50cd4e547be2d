"""Bug: the row sums of ``examples/numba_block_sum.py`` without the ``cuda.syncthreads()`` between the partial sums'
writes to shared memory and the tree's first reads.

Thread t < 16 reads ``buf[t + 16]`` in the tree's first step; without the barrier the thread that owns it may not
have written it yet, and the sum takes what that slot held before. On a GPU that depends on how the block's warps
are scheduled (a 32-thread block is one warp, which often keeps in step, so a casual test passes). In Numba's CUDA
simulator it shows on almost every run: the simulator starts a block's threads one after another as Python threads,
and each runs until it blocks on a barrier, so thread 0 reads ``buf[16]`` before thread 16 exists, and finds the
previous block's value (the simulator keeps one shared array per launch) or, in the first block, an uninitialized
one.
"""

import torch
from numba import cuda, float32

import kcheck

TPB = 32


@cuda.jit
def row_sum_kernel(x, out, n):
    buf = cuda.shared.array(TPB, float32)
    row = cuda.blockIdx.x
    t = cuda.threadIdx.x
    acc = float32(0.0)
    for j in range(t, n, TPB):
        acc += float32(x[row, j])
    buf[t] = acc
    # BUG: cuda.syncthreads() missing here: the tree below reads partial sums other threads have not written yet
    s = TPB // 2
    while s > 0:
        if t < s:
            buf[t] += buf[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        out[row] = buf[0]


def as_numba(t: torch.Tensor):
    return cuda.as_cuda_array(t) if t.is_cuda else t.numpy()


def row_sum(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m:
        row_sum_kernel[m, TPB](as_numba(x.contiguous()), as_numba(out), n)


spec = kcheck.Spec(
    name="numba_missing_barrier",
    kernel=row_sum,
    reference=lambda x: x.sum(-1),
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=4, max=5), "N": kcheck.Dim(nominal=256)},
    dtypes=["fp32"],
    reduce=["N"],
)
