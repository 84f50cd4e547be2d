"""Embedding lookup: out[t, :] = table[ids[t], :] for token ids (T,) and a table (V, D).

The grid is (tokens, chunks of BLOCK_D features); int64 row offsets (V * D may pass 2**31), any table strides.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "edge-guard"
GPU_ONLY = False


@triton.jit
def _embedding_kernel(ids_ptr, table_ptr, out_ptr, D, stride_tv, stride_td, stride_ot,
                      BLOCK_D: tl.constexpr):
    t = tl.program_id(0).to(tl.int64)
    d = tl.program_id(1).to(tl.int64) * BLOCK_D + tl.arange(0, BLOCK_D)
    token = tl.load(ids_ptr + t).to(tl.int64)
    row = tl.load(table_ptr + token * stride_tv + d * stride_td, mask=d < D, other=0.0)
    tl.store(out_ptr + t * stride_ot + d, row)


def embedding(ids: torch.Tensor, table: torch.Tensor, BLOCK_D: int = 128) -> torch.Tensor:
    T = ids.shape[0]
    D = table.shape[1]
    out = torch.empty((T, D), dtype=table.dtype, device=table.device)
    if T == 0 or D == 0:
        return out
    grid = (T, triton.cdiv(D, BLOCK_D))
    _embedding_kernel[grid](ids, table, out, D, table.stride(0), table.stride(1), out.stride(0), BLOCK_D=BLOCK_D)
    return out


spec = kcheck.Spec(
    name="ho_embedding",
    kernel=embedding,
    reference=lambda ids, table: table[ids],
    inputs=[kcheck.Index("T", high="V"), kcheck.Tensor("V", "D")],
    dims={"T": kcheck.Dim(nominal=64, real=()), "V": kcheck.Dim(nominal=256, min=1, real=(2880,)),
          "D": kcheck.Dim(nominal=256, real=(2880,))},
    configs=[{"BLOCK_D": 128}, {"BLOCK_D": 64}],
)
