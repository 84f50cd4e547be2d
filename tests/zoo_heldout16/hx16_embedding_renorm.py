"""Max-norm constraint on an embedding table, in place (torch.embedding_renorm_ over every row, or Keras' MaxNorm
applied after an optimizer step): a row whose L2 norm exceeds max_norm is scaled by max_norm / (norm + 1e-7).
Rows are taken BLOCK_R at a time; each row's norm is accumulated in fp32 over BLOCK_D-wide chunks, then a second
pass over the chunks rescales it."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "off-by-one-mask"


@triton.jit
def renorm_kernel(w_ptr, V, D, stride_v, stride_d, max_norm, BLOCK_R: tl.constexpr, BLOCK_D: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R).to(tl.int64)
    row_ok = rows < V
    base = w_ptr + rows[:, None] * stride_v
    ss = tl.zeros([BLOCK_R], dtype=tl.float32)
    for start in range(0, D, BLOCK_D):
        cols = start + tl.arange(0, BLOCK_D).to(tl.int64)
        m = row_ok[:, None] & (cols <= D)[None, :]
        w = tl.load(base + cols[None, :] * stride_d, mask=m, other=0.0).to(tl.float32)
        ss += tl.sum(w * w, axis=1)
    norm = tl.sqrt(ss)
    scale = tl.where(norm > max_norm, max_norm / (norm + 1e-7), 1.0)
    for start in range(0, D, BLOCK_D):
        cols = start + tl.arange(0, BLOCK_D).to(tl.int64)
        m = row_ok[:, None] & (cols < D)[None, :]
        ptrs = base + cols[None, :] * stride_d
        w = tl.load(ptrs, mask=m, other=0.0).to(tl.float32)
        tl.store(ptrs, (w * scale[:, None]).to(w_ptr.dtype.element_ty), mask=m)


def embedding_renorm_(weight: torch.Tensor, max_norm: float, BLOCK_D: int = 256) -> torch.Tensor:
    V, D = weight.shape
    if V == 0 or D == 0:
        return weight
    block_d = min(BLOCK_D, triton.next_power_of_2(D))
    block_r = max(1, min(4096 // block_d, triton.next_power_of_2(V)))
    renorm_kernel[(triton.cdiv(V, block_r),)](weight, V, D, weight.stride(0), weight.stride(1), max_norm,
                                              BLOCK_R=block_r, BLOCK_D=block_d)
    return weight


def reference(weight: torch.Tensor, max_norm: float) -> torch.Tensor:
    norm = weight.norm(dim=1, keepdim=True)
    return torch.where(norm > max_norm, weight * (max_norm / (norm + 1e-7)), weight)


spec = kcheck.Spec(
    name="hx16_embedding_renorm",
    kernel=embedding_renorm_,
    reference=reference,
    inputs=[kcheck.Tensor("V", "D", name="weight", mutated=True)],
    dims={"V": kcheck.Dim(nominal=256), "D": kcheck.Dim(nominal=200)},
    reduce=["D"],
    params={"max_norm": [1.0, 12.0]},
    configs=[{"BLOCK_D": 256}, {"BLOCK_D": 64}],
)
