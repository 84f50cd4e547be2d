"""EmbeddingBag(mode="sum") with fixed-size bags: out[b] = sum over s of table[ids[b, s]] for ids (B, S) into a
(V, D) table. Long bags are split across programs: program (b, chunk, dblock) gathers the rows of CHUNK ids of bag b
over BLOCK_D columns, sums them in fp32 and adds its partial sum to the output with an atomic add."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def embedding_bag_kernel(ids_ptr, table_ptr, out_ptr, S, D, stride_ib, stride_tv, stride_td, stride_ob,
                         CHUNK: tl.constexpr, BLOCK_D: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    s = tl.program_id(1) * CHUNK + tl.arange(0, CHUNK)
    cols = tl.program_id(2).to(tl.int64) * BLOCK_D + tl.arange(0, BLOCK_D)
    s_mask = s < S
    col_mask = cols < D
    rows = tl.load(ids_ptr + b * stride_ib + s, mask=s_mask, other=0).to(tl.int64)
    vals = tl.load(table_ptr + rows[:, None] * stride_tv + cols[None, :] * stride_td,
                   mask=s_mask[:, None] & col_mask[None, :], other=0.0)
    acc = tl.sum(vals.to(tl.float32), axis=0)
    tl.atomic_add(out_ptr + b * stride_ob + cols, acc, mask=col_mask)


def embedding_bag(ids: torch.Tensor, table: torch.Tensor, CHUNK: int = 32, BLOCK_D: int = 128) -> torch.Tensor:
    B, S = ids.shape
    D = table.shape[1]
    out = torch.empty((B, D), dtype=torch.float32, device=table.device)
    if B and D and S:
        ids = ids.contiguous()
        grid = (B, triton.cdiv(S, CHUNK), triton.cdiv(D, BLOCK_D))
        embedding_bag_kernel[grid](ids, table, out, S, D, ids.stride(0), table.stride(0), table.stride(1),
                                   out.stride(0), CHUNK=CHUNK, BLOCK_D=BLOCK_D)
    elif B and D:
        out.zero_()
    return out.to(table.dtype)


spec = kcheck.Spec(
    name="hx3_embedding_bag",
    kernel=embedding_bag,
    reference=lambda ids, table: table[ids].sum(1),
    inputs=[kcheck.Index("B", "S", high="V", name="ids"), kcheck.Tensor("V", "D", name="table")],
    dims={"B": kcheck.Dim(nominal=32), "S": kcheck.Dim(nominal=64), "V": kcheck.Dim(nominal=1000),
          "D": kcheck.Dim(nominal=256)},
    reduce=["S"],
    configs=[{"CHUNK": 32, "BLOCK_D": 128}, {"CHUNK": 64, "BLOCK_D": 64}],
)

BUG_CLASS = "uninitialized-accumulator"
