"""Token embedding lookup scaled by sqrt(d_model) (T5 / Gemma style): out[t, :] = table[ids[t], :] * scale.

Token ids come as int32 (as tokenizers hand them over); one program per token, the row copied in BLOCK_D-wide
chunks. Output offsets are int64.
"""

import math

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def embed_kernel(ids_ptr, table_ptr, out_ptr, D, scale, stride_tv, stride_td, stride_ot, stride_od,
                 BLOCK_D: tl.constexpr):
    t = tl.program_id(0).to(tl.int64)
    tok = tl.load(ids_ptr + t)
    src = table_ptr + tok * stride_tv
    dst = out_ptr + t * stride_ot
    for start in range(0, D, BLOCK_D):
        cols = start + tl.arange(0, BLOCK_D).to(tl.int64)
        mask = cols < D
        row = tl.load(src + cols * stride_td, mask=mask, other=0.0).to(tl.float32)
        tl.store(dst + cols * stride_od, (row * scale).to(out_ptr.dtype.element_ty), mask=mask)


def scaled_embedding(ids: torch.Tensor, table: torch.Tensor, BLOCK_D: int = 256) -> torch.Tensor:
    T = ids.shape[0]
    V, D = table.shape
    out = torch.empty((T, D), dtype=table.dtype, device=table.device)
    if T == 0 or D == 0:
        return out
    embed_kernel[(T,)](ids, table, out, D, math.sqrt(D), table.stride(0), table.stride(1), out.stride(0),
                       out.stride(1), BLOCK_D=BLOCK_D)
    return out


def reference(ids: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    return table[ids.long()] * math.sqrt(table.shape[1])


BUG_CLASS = "int32-overflow"

spec = kcheck.Spec(
    name="hx13_scaled_embedding",
    kernel=scaled_embedding,
    reference=reference,
    inputs=[kcheck.Index("T", high="V", dtype=torch.int32, name="ids"), kcheck.Tensor("V", "D", name="table")],
    dims={"T": kcheck.Dim(nominal=64, real=()), "V": kcheck.Dim(nominal=512, real=(32000,)),
          "D": kcheck.Dim(nominal=128, real=())},
    configs=[{"BLOCK_D": 256}, {"BLOCK_D": 64}],
)
