"""BERT-style token-type (segment) embedding added to the token activations:

    out[t, :] = x[t, :] + type_table[type_ids[t], :]

Row blocks: each program takes BLOCK_T tokens and walks the hidden dimension in BLOCK_D-wide chunks, gathering its
tokens' rows of the table. Computes in fp32, stores in the activations' dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "int32-overflow"


@triton.jit
def type_embed_add_kernel(x_ptr, ids_ptr, tab_ptr, out_ptr, T, D, s_xt, s_xd, s_tv, s_td, s_ot, s_od,
                          BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_T + tl.arange(0, BLOCK_T)
    row_ok = rows < T
    ids = tl.load(ids_ptr + rows, mask=row_ok, other=0).to(tl.int64)
    for start in range(0, D, BLOCK_D):
        cols = start + tl.arange(0, BLOCK_D)
        mask = row_ok[:, None] & (cols < D)[None, :]
        x = tl.load(x_ptr + rows[:, None] * s_xt + cols[None, :] * s_xd, mask=mask, other=0.0).to(tl.float32)
        e = tl.load(tab_ptr + ids[:, None] * s_tv + cols[None, :] * s_td, mask=mask, other=0.0).to(tl.float32)
        tl.store(out_ptr + rows[:, None] * s_ot + cols[None, :] * s_od, (x + e).to(out_ptr.dtype.element_ty),
                 mask=mask)


def type_embed_add(x, type_ids, table, BLOCK_T=8, BLOCK_D=256):
    T, D = x.shape
    out = torch.empty((T, D), dtype=x.dtype, device=x.device)
    if T == 0 or D == 0:
        return out
    type_embed_add_kernel[(triton.cdiv(T, BLOCK_T),)](
        x, type_ids, table, out, T, D, x.stride(0), x.stride(1), table.stride(0), table.stride(1),
        out.stride(0), out.stride(1), BLOCK_T=BLOCK_T, BLOCK_D=BLOCK_D)
    return out


def reference(x, type_ids, table):
    return x + table[type_ids]


spec = kcheck.Spec(
    name="hx15_token_type_embed_add",
    kernel=type_embed_add,
    reference=reference,
    inputs=[kcheck.Tensor("T", "D", name="x"), kcheck.Index("T", high="V", name="type_ids"),
            kcheck.Tensor("V", "D", name="type_table")],
    dims={"T": kcheck.Dim(nominal=256), "D": kcheck.Dim(nominal=768),
          "V": kcheck.Dim(nominal=2, min=1, max=16, real=(), large=False)},
    configs=[{"BLOCK_T": 8, "BLOCK_D": 256}, {"BLOCK_T": 2, "BLOCK_D": 1024}],
)
