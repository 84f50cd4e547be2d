"""CUDA C zero-crossing rate of audio frames (librosa.feature.zero_crossing_rate with zero counted as positive):
for each frame of L samples, the number of i in 1..L-1 where x[i-1] and x[i] lie on opposite sides of zero,
divided by L. One block of 256 threads per frame, a strided count per thread, then a tree reduction of the counts
in shared memory."""

import torch

import kcheck

BUG_CLASS = "divergent-barrier"

SOURCE = r"""
#define THREADS 256
extern "C" __global__ void frame_zcr(const float* __restrict__ x, float* __restrict__ out, int frames, int len) {
    __shared__ int counts[THREADS];
    const int f = blockIdx.x, tid = threadIdx.x;
    const float* xf = x + (size_t)f * (size_t)len;
    int c = 0;
    for (int i = tid + 1; i < len; i += THREADS) c += (xf[i] >= 0.0f) != (xf[i - 1] >= 0.0f);
    counts[tid] = c;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (tid < s) {
            counts[tid] += counts[tid + s];
            __syncthreads();
        }
    }
    if (tid == 0) out[f] = (float)counts[0] / (float)len;
}
"""

frame_zcr_kernel = kcheck.CudaKernel(SOURCE, "frame_zcr", grid=lambda x, out, f, n: (f,), block=(256,))


def frame_zcr(x: torch.Tensor, out: torch.Tensor) -> None:
    F, L = x.shape
    if F:
        frame_zcr_kernel(x.contiguous(), out, F, L)


def reference(x: torch.Tensor) -> torch.Tensor:
    pos = x >= 0
    return (pos[:, 1:] != pos[:, :-1]).sum(-1).to(x.dtype) / x.shape[1]


spec = kcheck.Spec(
    name="hx16_cuda_frame_zcr",
    kernel=frame_zcr,
    reference=reference,
    inputs=[kcheck.Tensor("F", "L", name="frames")],
    outputs=[kcheck.Tensor("F")],
    dims={"F": kcheck.Dim(nominal=128), "L": kcheck.Dim(nominal=2048, min=1)},
    dtypes=["fp32"],
    reduce=["L"],
)
