"""Embedding lookup (gather rows of a table): out[t, :] = table[ids[t], :], several tokens per program, the
embedding dimension covered by one power-of-two block."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def embedding_kernel(ids_ptr, table_ptr, out_ptr, T, D, stride_v, stride_d, stride_ot,
                     BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    toks = pid * BLOCK_T + tl.arange(0, BLOCK_T).to(tl.int64)
    tok_mask = toks < T
    ids = tl.load(ids_ptr + toks, mask=tok_mask, other=0).to(tl.int64)
    cols = tl.arange(0, BLOCK_D).to(tl.int64)
    rows = tl.load(table_ptr + ids[:, None] * stride_v + cols[None, :] * stride_d, mask=tok_mask[:, None])
    mask = tok_mask[:, None] & (cols < D)[None, :]
    tl.store(out_ptr + toks[:, None] * stride_ot + cols[None, :], rows, mask=mask)


def embedding(ids, table, BLOCK_T=16):
    T = ids.shape[0]
    D = table.shape[1]
    out = torch.empty((T, D), dtype=table.dtype, device=table.device)
    if T and D:
        ids = ids.contiguous()
        embedding_kernel[(triton.cdiv(T, BLOCK_T),)](ids, table, out, T, D, table.stride(0), table.stride(1),
                                                     out.stride(0), BLOCK_T=BLOCK_T,
                                                     BLOCK_D=triton.next_power_of_2(D))
    return out


spec = kcheck.Spec(
    name="hx2_embedding_gather",
    kernel=embedding,
    reference=lambda ids, table: table[ids],
    inputs=[kcheck.Index("T", high="V"), kcheck.Tensor("V", "D")],
    dims={"T": kcheck.Dim(nominal=64, real=()), "V": kcheck.Dim(nominal=500, min=1), "D": kcheck.Dim(nominal=96)},
    configs=[{"BLOCK_T": 16}, {"BLOCK_T": 1}],
)

BUG_CLASS = "edge-guard"
