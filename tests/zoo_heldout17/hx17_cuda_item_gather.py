"""CUDA C weighted item-embedding gather (recommender systems: interaction-weighted item vectors).

table [V, D] item embeddings, ids [B] item ids (int32), w [B] interaction weights: out[b, :] = w[b] * table[ids[b], :].
2-D grid: blockIdx.x the interaction, blockIdx.y x 128 threads the embedding columns; size_t offsets.
"""

import torch
import triton

import kcheck

BUG_CLASS = "kernel-crash"

SOURCE = r"""
extern "C" __global__ void weighted_item_gather(const float* __restrict__ table, const long long* __restrict__ ids,
                                                const float* __restrict__ w, float* __restrict__ out, int b, int d) {
    const int row = blockIdx.x;
    const int col = blockIdx.y * blockDim.x + threadIdx.x;
    if (col >= d) return;
    const size_t item = (size_t)ids[row];
    out[(size_t)row * d + col] = w[row] * table[item * d + col];
}
"""

gather_kernel = kcheck.CudaKernel(
    SOURCE, "weighted_item_gather",
    grid=lambda table, ids, w, out, b, d: (b, triton.cdiv(d, 128)), block=(128,))


def weighted_item_gather(table, ids, w):
    V, D = table.shape
    B = ids.shape[0]
    table, w = table.contiguous(), w.contiguous()
    ids = ids.to(torch.int32).contiguous()
    out = torch.empty((B, D), dtype=table.dtype, device=table.device)
    if B and D:
        gather_kernel(table, ids, w, out, B, D)
    return out


def reference(table, ids, w):
    return w[:, None] * table[ids]


spec = kcheck.Spec(
    name="hx17_cuda_item_gather",
    kernel=weighted_item_gather,
    reference=reference,
    inputs=[kcheck.Tensor("V", "D", name="table"), kcheck.Index("B", high="V", dtype=torch.int32, name="ids"),
            kcheck.Tensor("B", name="w")],
    dims={"V": kcheck.Dim(nominal=1000), "D": kcheck.Dim(nominal=64, large=False), "B": kcheck.Dim(nominal=256)},
    dtypes=["fp32"],
)
