"""Delta encoding along time: out[b, 0] = x[b, 0], out[b, l] = x[b, l] - x[b, l - 1].

A 2-D grid (row b, BLOCK_L-wide chunk of the row); each program reads its chunk and the chunk shifted left by one
(x[b, l - 1], 0 before the row's start) and writes the fp32 differences, in the input dtype, back into x
(the launcher passes x as the output and returns it).
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def delta_kernel(x_ptr, out_ptr, L, sxb, sxl, sob, sol, BLOCK_L: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    offs = tl.program_id(1).to(tl.int64) * BLOCK_L + tl.arange(0, BLOCK_L)
    mask = offs < L
    x = tl.load(x_ptr + b * sxb + offs * sxl, mask=mask, other=0.0).to(tl.float32)
    prev = tl.load(x_ptr + b * sxb + (offs - 1) * sxl, mask=mask & (offs > 0), other=0.0).to(tl.float32)
    tl.store(out_ptr + b * sob + offs * sol, (x - prev).to(out_ptr.dtype.element_ty), mask=mask)


def delta_encode(x: torch.Tensor, BLOCK_L: int = 1024) -> torch.Tensor:
    B, L = x.shape
    if B and L:  # in place: the differences overwrite x
        delta_kernel[(B, triton.cdiv(L, BLOCK_L))](x, x, L, x.stride(0), x.stride(1), x.stride(0), x.stride(1),
                                                  BLOCK_L=BLOCK_L)
    return x


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.diff(x, dim=-1, prepend=torch.zeros_like(x[:, :1]))


spec = kcheck.Spec(
    name="hx10_delta_encode",
    kernel=delta_encode,
    reference=reference,
    inputs=[kcheck.Tensor("B", "L", mutated=True)],
    dims={"B": kcheck.Dim(nominal=32), "L": kcheck.Dim(nominal=1024)},
    configs=[{"BLOCK_L": 1024}, {"BLOCK_L": 128}],
)

BUG_CLASS = "race"
