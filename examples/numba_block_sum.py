"""Numba CUDA row sums: one block of 32 threads per row, a strided partial sum per thread, then a tree reduction in
shared memory (``cuda.shared.array``) with a ``cuda.syncthreads()`` after the partial sums and after every step.

The launcher hands numba views of kcheck's torch tensors: ``numba.cuda.as_cuda_array`` on a GPU,
``Tensor.numpy()`` in Numba's CUDA simulator, which kcheck uses on a machine without a GPU. The simulator runs a
block's threads as Python threads, one block after another, each block about 0.07 s with its barriers: the rows
(one block each) stay few (``Dim(nominal=4, max=5)``); the row length, where the tail and the reduction's accuracy
are, costs little (each thread loops over it) and keeps kcheck's full range of sizes.
"""

import torch
from numba import cuda, float32

import kcheck

TPB = 32  # threads per block, a power of two: the tree halves it


@cuda.jit
def row_sum_kernel(x, out, n):
    buf = cuda.shared.array(TPB, float32)
    row = cuda.blockIdx.x
    t = cuda.threadIdx.x
    acc = float32(0.0)
    for j in range(t, n, TPB):
        acc += float32(x[row, j])
    buf[t] = acc
    cuda.syncthreads()  # every partial sum is in shared memory before any thread reads another's
    s = TPB // 2
    while s > 0:
        if t < s:
            buf[t] += buf[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        out[row] = buf[0]


def as_numba(t: torch.Tensor):
    """What a numba kernel takes for a torch tensor: a device-array view on a GPU, a NumPy view on the simulator."""
    return cuda.as_cuda_array(t) if t.is_cuda else t.numpy()


def row_sum(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m:
        # contiguous: the simulator copies each array in as one memory region (a GPU would take the strided view)
        row_sum_kernel[m, TPB](as_numba(x.contiguous()), as_numba(out), n)


spec = kcheck.Spec(
    name="numba_block_sum",
    kernel=row_sum,
    reference=lambda x: x.sum(-1),
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=4, max=5), "N": kcheck.Dim(nominal=256)},
    dtypes=["fp32"],
    reduce=["N"],
)
