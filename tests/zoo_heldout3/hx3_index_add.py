"""index_add along dim 0: out = base.clone(); out[index[i], :] += src[i, :] for each i (the embedding-gradient
scatter). One program per source row and BLOCK_D columns; the update is done in the output's dtype."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def index_add_kernel(src_ptr, idx_ptr, out_ptr, D, stride_s, stride_o, BLOCK_D: tl.constexpr):
    i = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_D + tl.arange(0, BLOCK_D)
    mask = cols < D
    dst = tl.load(idx_ptr + i)
    v = tl.load(src_ptr + i * stride_s + cols, mask=mask, other=0.0)
    o_ptrs = out_ptr + dst * stride_o + cols
    cur = tl.load(o_ptrs, mask=mask, other=0.0)
    tl.store(o_ptrs, cur + v, mask=mask)


def index_add(base: torch.Tensor, index: torch.Tensor, src: torch.Tensor, BLOCK_D: int = 128) -> torch.Tensor:
    out = base.clone()
    T, D = src.shape
    if T == 0 or D == 0:
        return out
    assert src.stride(1) == 1 and out.stride(1) == 1
    index_add_kernel[(T, triton.cdiv(D, BLOCK_D))](src, index, out, D, src.stride(0), out.stride(0),
                                                   BLOCK_D=BLOCK_D)
    return out


spec = kcheck.Spec(
    name="hx3_index_add",
    kernel=index_add,
    reference=lambda base, index, src: base.index_add(0, index, src),
    inputs=[kcheck.Tensor("V", "D", name="base"), kcheck.Index("T", high="V", name="index"),
            kcheck.Tensor("T", "D", name="src")],
    dims={"V": kcheck.Dim(nominal=64), "T": kcheck.Dim(nominal=512), "D": kcheck.Dim(nominal=256)},
    configs=[{"BLOCK_D": 128}, {"BLOCK_D": 64}],
)

BUG_CLASS = "missing-atomic"
