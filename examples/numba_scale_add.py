"""Numba CUDA scale-and-add, ``out = alpha * x + y``: one thread per element, with a bounds guard for the last block.

The launcher hands numba views of kcheck's torch tensors: ``numba.cuda.as_cuda_array`` on a GPU (torch CUDA tensors
export ``__cuda_array_interface__``; no copy), ``Tensor.numpy()`` on a machine without one, where kcheck runs the
kernel in Numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``), which copies the NumPy view in and writes it back.
The simulator runs about a few thousand threads a second, so the sizes stay small (``Dim(max=...)``).
"""

import torch
from numba import cuda

import kcheck


@cuda.jit
def scale_add_kernel(x, y, out, alpha, n):
    i = cuda.grid(1)
    if i < n:  # the last block runs past n when n is not a multiple of the block
        out[i] = alpha * x[i] + y[i]


def as_numba(t: torch.Tensor):
    """What a numba kernel takes for a torch tensor: a device-array view on a GPU, a NumPy view on the simulator."""
    return cuda.as_cuda_array(t) if t.is_cuda else t.numpy()


def scale_add(x: torch.Tensor, y: torch.Tensor, alpha: float, out: torch.Tensor, TPB: int = 128) -> None:
    n = x.numel()
    if n:
        scale_add_kernel[(n + TPB - 1) // TPB, TPB](as_numba(x), as_numba(y), as_numba(out), alpha, n)


spec = kcheck.Spec(
    name="numba_scale_add",
    kernel=scale_add,
    reference=lambda x, y, alpha: alpha * x + y,
    inputs=[kcheck.Tensor("N"), kcheck.Tensor("N"), kcheck.Scalar(0.5)],
    outputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=256, max=1024)},
    dtypes=["fp32"],
    configs=[{"TPB": 128}, {"TPB": 32}],
)
