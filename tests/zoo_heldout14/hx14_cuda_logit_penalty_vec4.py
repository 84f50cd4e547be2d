"""CUDA C frequency and presence penalties of LLM sampling (OpenAI-style, as vLLM applies them): with counts[b, v]
the number of times token v already appeared in sequence b,

    out[b, v] = logits[b, v] - frequency_penalty * counts[b, v] - presence_penalty * (counts[b, v] > 0)

Grid (sequences, chunks of 1024 vocabulary entries), 256 threads, 4 consecutive entries per thread. With 16-byte
aligned buffers a thread moves its 4 entries with one float4 / int4 load and one float4 store; otherwise, and for
the last partial group of a row, it goes entry by entry. The number of 1024-entry chunks rides on grid.y (at most
65535), hence V's large case is off.
"""

import torch
import triton

import kcheck

BUG_CLASS = "misaligned-access"

SOURCE = r"""
__device__ __forceinline__ float penalized(float l, int c, float freq, float presence) {
    return l - freq * (float)c - (c > 0 ? presence : 0.0f);
}

extern "C" __global__ void apply_penalties(const float* __restrict__ logits, const int* __restrict__ counts,
                                           float* __restrict__ out, int V, float freq, float presence) {
    const size_t row = blockIdx.x;
    const int j0 = (blockIdx.y * blockDim.x + threadIdx.x) * 4;
    if (j0 >= V) return;
    const float* l = logits + row * (size_t)V;
    const int* c = counts + row * (size_t)V;
    float* o = out + row * (size_t)V;
    const bool aligned = ((((size_t)logits) | ((size_t)counts) | ((size_t)out)) & 15) == 0;
    if (aligned && j0 + 3 < V) {
        const float4 lv = *reinterpret_cast<const float4*>(l + j0);
        const int4 cv = *reinterpret_cast<const int4*>(c + j0);
        float4 r;
        r.x = penalized(lv.x, cv.x, freq, presence);
        r.y = penalized(lv.y, cv.y, freq, presence);
        r.z = penalized(lv.z, cv.z, freq, presence);
        r.w = penalized(lv.w, cv.w, freq, presence);
        *reinterpret_cast<float4*>(o + j0) = r;
    } else {
        const int end = min(j0 + 4, V);
        for (int j = j0; j < end; ++j) o[j] = penalized(l[j], c[j], freq, presence);
    }
}
"""

penalty_kernel = kcheck.CudaKernel(
    SOURCE, "apply_penalties",
    grid=lambda logits, counts, out, V, freq, presence: (logits.shape[0], triton.cdiv(V, 1024)),
    block=(256,))


def apply_penalties(logits: torch.Tensor, counts: torch.Tensor, out: torch.Tensor, frequency_penalty: float = 0.5,
                    presence_penalty: float = 0.25) -> None:
    B, V = logits.shape
    if B and V:
        penalty_kernel(logits.contiguous(), counts.contiguous(), out, V, frequency_penalty, presence_penalty)


def reference(logits: torch.Tensor, counts: torch.Tensor, frequency_penalty: float = 0.5,
              presence_penalty: float = 0.25) -> torch.Tensor:
    c = counts.to(logits.dtype)
    return logits - frequency_penalty * c - presence_penalty * (counts > 0).to(logits.dtype)


spec = kcheck.Spec(
    name="hx14_cuda_logit_penalty_vec4",
    kernel=apply_penalties,
    reference=reference,
    inputs=[kcheck.Tensor("B", "V", name="logits"), kcheck.Index("B", "V", high=8, dtype=torch.int32, name="counts")],
    outputs=[kcheck.Tensor("B", "V")],
    dims={"B": kcheck.Dim(nominal=8), "V": kcheck.Dim(nominal=4096, large=False)},
    dtypes=["fp32"],
    params={"frequency_penalty": [0.5, 0.0], "presence_penalty": [0.25, 1.0]},
)
