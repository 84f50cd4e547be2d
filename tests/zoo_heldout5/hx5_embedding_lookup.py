"""Embedding lookup: out[t, :] = table[ids[t], :] * scale, the token-embedding gather of a language model (scale
is sqrt(D) in some models, 1 in others).

One program per token, the row copied BLOCK_D columns at a time. Token ids are read as int64 and the table row
offset ids * stride is formed in int64, since a 128256 x 8192 table is past 2**31 elements. Any strides; the
output is the kcheck-allocated [T, D] buffer.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def embedding_kernel(ids_ptr, table_ptr, out_ptr, D, scale, stride_tv, stride_td, stride_ot, stride_od,
                     BLOCK_D: tl.constexpr):
    tok = tl.program_id(0)
    idx = tl.load(ids_ptr + tok).to(tl.int64)
    src = table_ptr + idx * stride_tv
    dst = out_ptr + tok * stride_ot
    for start in range(0, D, BLOCK_D):
        cols = start + tl.arange(0, BLOCK_D)
        mask = cols < D
        row = tl.load(src + cols * stride_td, mask=mask, other=0.0)
        tl.store(dst + cols * stride_od, (row.to(tl.float32) * scale).to(out_ptr.dtype.element_ty), mask=mask)


def embedding(ids: torch.Tensor, table: torch.Tensor, out: torch.Tensor, scale: float = 1.0,
              BLOCK_D: int = 512) -> None:
    (T,) = ids.shape
    D = table.shape[1]
    if T == 0 or D == 0:
        return
    block_d = min(BLOCK_D, triton.next_power_of_2(D))
    embedding_kernel[(T,)](ids, table, out, D, float(scale), table.stride(0), table.stride(1),
                           out.stride(0), out.stride(1), BLOCK_D=block_d)


def reference(ids: torch.Tensor, table: torch.Tensor, scale: float = 1.0) -> torch.Tensor:
    return table[ids] * scale


spec = kcheck.Spec(
    name="hx5_embedding_lookup",
    kernel=embedding,
    reference=reference,
    inputs=[kcheck.Index("T", high="V", name="ids"), kcheck.Tensor("V", "D", name="table")],
    outputs=[kcheck.Tensor("T", "D")],
    dims={"T": kcheck.Dim(nominal=256), "V": kcheck.Dim(nominal=1000), "D": kcheck.Dim(nominal=256)},
    params={"scale": [1.0, 16.0]},
    configs=[{"BLOCK_D": 512}, {"BLOCK_D": 64}],
)

BUG_CLASS = "int32-overflow"
