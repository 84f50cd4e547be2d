"""Embedding lookup: out[t, :] = table[ids[t], :]. A 2-D grid, one token per program along axis 0 and one
BLOCK_D-wide slice of the embedding along axis 1; ids are int64 and row offsets int64 (a 128256-row vocabulary)."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def embedding_kernel(ids_ptr, table_ptr, out_ptr, D, stride_tv, stride_td, stride_ot, stride_od,
                     BLOCK_D: tl.constexpr):
    t = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    mask = cols < D
    row = tl.load(ids_ptr + t)
    vals = tl.load(table_ptr + row * stride_tv + cols * stride_td, mask=mask)
    tl.store(out_ptr + t * stride_ot + cols * stride_od, vals, mask=mask)


def embedding(ids, table, BLOCK_D=64):
    T = ids.shape[0]
    D = table.shape[1]
    out = torch.empty((T, D), dtype=table.dtype, device=table.device)
    if T == 0 or D == 0:
        return out
    grid = (T, max(1, D // BLOCK_D))
    embedding_kernel[grid](ids, table, out, D, table.stride(0), table.stride(1), out.stride(0), out.stride(1),
                           BLOCK_D=BLOCK_D)
    return out


spec = kcheck.Spec(
    name="hx4_embedding_gather",
    kernel=embedding,
    reference=lambda ids, table: table[ids],
    inputs=[kcheck.Index("T", high="V", name="ids"), kcheck.Tensor("V", "D", name="table")],
    dims={"T": kcheck.Dim(nominal=128), "V": kcheck.Dim(nominal=256), "D": kcheck.Dim(nominal=256)},
    configs=[{"BLOCK_D": 64}, {"BLOCK_D": 128}],
)

BUG_CLASS = "tail-tile-dropped"
