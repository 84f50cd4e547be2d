"""CUDA C transverse-momentum fractions of the particles of collision events (particle physics: the share of an
event's scalar pT sum, H_T, carried by each reconstructed particle).

pt[e, p] is the transverse momentum of particle p of event e (signed by the charge of the track, so its
magnitude is taken); an event with no momentum at all gets zeros:

    frac[e, p] = |pt[e, p]| / sum_q |pt[e, q]|

One block of 256 threads per event: strided partial sums in fp32, a tree reduction in shared memory with a
__syncthreads() after every step, then every thread writes its particles' fractions. size_t offsets; the input's
row pitch is honoured.
"""

import torch

import kcheck

BUG_CLASS = "divergent-barrier"

SOURCE = r"""
extern "C" __global__ void pt_fraction(const float* __restrict__ pt, float* __restrict__ out, int n, int ld) {
    __shared__ float buf[256];
    const int t = threadIdx.x;
    if (t >= n) return;  /* no particle left for this thread */
    const float* row = pt + (size_t)blockIdx.x * (size_t)ld;
    float acc = 0.0f;
    for (int j = t; j < n; j += blockDim.x) acc += fabsf(row[j]);
    buf[t] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] += buf[t + s];
        __syncthreads();
    }
    const float total = buf[0];
    float* o = out + (size_t)blockIdx.x * (size_t)n;
    for (int j = t; j < n; j += blockDim.x) o[j] = total != 0.0f ? fabsf(row[j]) / total : 0.0f;
}
"""

pt_fraction_kernel = kcheck.CudaKernel(SOURCE, "pt_fraction", grid=lambda pt, out, n, ld: (out.shape[0],),
                                       block=(256,))


def event_pt_fraction(pt: torch.Tensor, out: torch.Tensor) -> None:
    e, n = pt.shape
    if e == 0 or n == 0:
        return
    if pt.stride(1) != 1:
        pt = pt.contiguous()
    pt_fraction_kernel(pt, out, n, pt.stride(0))


def reference(pt: torch.Tensor) -> torch.Tensor:
    a = pt.abs()
    total = a.sum(-1, keepdim=True)
    return torch.where(total == 0, torch.zeros_like(a), a / total)


spec = kcheck.Spec(
    name="hx39_cuda_event_pt_fraction",
    kernel=event_pt_fraction,
    reference=reference,
    inputs=[kcheck.Tensor("E", "P", name="pt")],
    outputs=[kcheck.Tensor("E", "P")],
    dims={"E": kcheck.Dim(nominal=200), "P": kcheck.Dim(nominal=150)},
    dtypes=["fp32"],
    reduce=["P"],
)
