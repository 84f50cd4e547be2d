"""Bug: the scale-add of ``examples/numba_scale_add.py`` without its bounds guard.

The grid is rounded up to whole blocks of TPB threads, so when n is not a multiple of TPB the last block's threads
past n index x, y and out past their ends. A power-of-two size passes. On a GPU the stray reads and writes land in
whatever memory follows (often the caching allocator's slack, silently). Numba's CUDA simulator checks every index
against the array's shape and raises ``IndexError`` naming the thread (``tid``) and block (``ctaid``) that went out,
so every case whose size is not a multiple of the block fails with that error.
"""

import torch
from numba import cuda

import kcheck


@cuda.jit
def scale_add_kernel(x, y, out, alpha, n):
    i = cuda.grid(1)
    out[i] = alpha * x[i] + y[i]  # BUG: no `if i < n:`, the last block runs past n


def as_numba(t: torch.Tensor):
    return cuda.as_cuda_array(t) if t.is_cuda else t.numpy()


def scale_add(x: torch.Tensor, y: torch.Tensor, alpha: float, out: torch.Tensor, TPB: int = 128) -> None:
    n = x.numel()
    if n:
        scale_add_kernel[(n + TPB - 1) // TPB, TPB](as_numba(x), as_numba(y), as_numba(out), alpha, n)


spec = kcheck.Spec(
    name="numba_unguarded_tail",
    kernel=scale_add,
    reference=lambda x, y, alpha: alpha * x + y,
    inputs=[kcheck.Tensor("N"), kcheck.Tensor("N"), kcheck.Scalar(0.5)],
    outputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=256, max=1024)},
    dtypes=["fp32"],
    configs=[{"TPB": 128}, {"TPB": 32}],
)
