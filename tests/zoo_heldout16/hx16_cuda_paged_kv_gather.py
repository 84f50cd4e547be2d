"""CUDA C paged KV-cache gather (vLLM-style): the cache is a pool of NB blocks of 16 tokens x D; each sequence s
has a block table of MAXB int32 block ids; out[s, j, i, :] = cache[table[s, j], i, :], i.e. the sequence's tokens in
order once the output is viewed as (S, MAXB*16, D). One block of threads per (sequence, table slot) copies 16*D
contiguous floats. size_t offsets."""

import torch

import kcheck

BUG_CLASS = "kernel-crash"

BLOCK_TOKENS = 16

SOURCE = r"""
#define BT 16
extern "C" __global__ void paged_gather(const float* __restrict__ cache, const long long* __restrict__ table,
                                        float* __restrict__ out, int seqs, int max_blocks, int dim) {
    const size_t slot = blockIdx.x;                 /* s * max_blocks + j */
    const size_t blk = (size_t)table[slot];
    const size_t chunk = (size_t)BT * (size_t)dim;
    const float* src = cache + blk * chunk;
    float* dst = out + slot * chunk;
    for (size_t e = threadIdx.x; e < chunk; e += blockDim.x) dst[e] = src[e];
}
"""

paged_gather_kernel = kcheck.CudaKernel(SOURCE, "paged_gather", grid=lambda c, t, o, s, mb, d: (s * mb,),
                                        block=(256,))


def paged_kv_gather(cache: torch.Tensor, table: torch.Tensor, out: torch.Tensor) -> None:
    S, MAXB = table.shape
    D = cache.shape[2]
    if S and MAXB and D:
        paged_gather_kernel(cache.contiguous(), table.to(torch.int32).contiguous(), out, S, MAXB, D)


def reference(cache: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    return cache[table.long()]


spec = kcheck.Spec(
    name="hx16_cuda_paged_kv_gather",
    kernel=paged_kv_gather,
    reference=reference,
    inputs=[kcheck.Tensor("NB", BLOCK_TOKENS, "D", name="cache"),
            kcheck.Index("S", "MAXB", high="NB", dtype=torch.int32, name="block_table")],
    outputs=[kcheck.Tensor("S", "MAXB", BLOCK_TOKENS, "D")],
    dims={"NB": kcheck.Dim(nominal=64, large=False), "S": kcheck.Dim(nominal=4, large=False),
          "MAXB": kcheck.Dim(nominal=8, large=False), "D": kcheck.Dim(nominal=128)},
    dtypes=["fp32"],
)
