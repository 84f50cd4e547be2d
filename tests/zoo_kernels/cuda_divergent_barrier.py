"""Bug class: divergent barrier (__syncthreads() inside a branch that only some threads of a block take), in CUDA C.

Each block of 64 threads stages its 64 inputs in shared memory and writes out[i] = 2 * buf[t]. The barrier that
should separate the staging from the reads sits inside ``if (t < 16)``: threads 16..63 never reach it. That is
undefined behaviour, yet since each thread reads back only the element it wrote itself the output is right, so
every functional test passes; the same pattern hangs or corrupts as soon as a thread reads a neighbour's element.
compute-sanitizer's synccheck (kcheck's sanitizer pass, ``kcheck check --sanitize``) reports the divergent
barrier. Without a GPU kcheck compiles it for sm_90 and skips its cases: the bug can only show on a GPU.
"""

import torch

import kcheck

SOURCE = r"""
extern "C" __global__ void shift(const float* __restrict__ x, float* __restrict__ out, int n) {
    __shared__ float buf[64];
    const int t = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * 64 + t;
    buf[t] = i < (size_t)n ? x[i] : 0.0f;
    if (t < 16) {
        __syncthreads();  /* BUG: divergent barrier: threads 16..63 never reach it (hoist it out of the branch) */
    }
    if (i < (size_t)n) out[i] = 2.0f * buf[t];
}
"""

shift_kernel = kcheck.CudaKernel(SOURCE, "shift", grid=lambda x, out, n: ((n + 63) // 64,), block=(64,))


def shift(x: torch.Tensor, out: torch.Tensor) -> None:
    n = x.numel()
    if n:
        shift_kernel(x.contiguous(), out, n)


spec = kcheck.Spec(
    name="cuda_divergent_barrier",
    kernel=shift,
    reference=lambda x: 2 * x,
    inputs=[kcheck.Tensor("N")],
    outputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=1024, large=False)},
    dtypes=["fp32"],
)

BUG_CLASS = "divergent-barrier"
