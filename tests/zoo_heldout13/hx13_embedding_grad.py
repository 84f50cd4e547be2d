"""Backward of an embedding lookup: the weight gradient dW[v, :] = sum of grad_out[t, :] over the tokens t with
ids[t] == v (repeated ids accumulate). One program per token adds its row into dW with fp32 atomics; dW is
returned in the gradient's dtype. ``weight`` is the forward's table (only its shape and dtype are used).
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def embedding_grad_kernel(g_ptr, ids_ptr, dw_ptr, D, stride_gt, stride_gd, BLOCK_D: tl.constexpr):
    t = tl.program_id(0).to(tl.int64)
    tok = tl.load(ids_ptr + t).to(tl.int64)
    for start in range(0, D, BLOCK_D):
        cols = start + tl.arange(0, BLOCK_D).to(tl.int64)
        mask = cols < D
        g = tl.load(g_ptr + t * stride_gt + cols * stride_gd, mask=mask, other=0.0).to(tl.float32)
        tl.atomic_add(dw_ptr + tok * D + cols, g, mask=mask)


def embedding_grad(grad_out: torch.Tensor, ids: torch.Tensor, weight: torch.Tensor,
                   BLOCK_D: int = 128) -> torch.Tensor:
    T, D = grad_out.shape
    V = weight.shape[0]
    dw = torch.empty((V, D), dtype=torch.float32, device=grad_out.device)
    if T and D:
        embedding_grad_kernel[(T,)](grad_out, ids, dw, D, grad_out.stride(0), grad_out.stride(1),
                                    BLOCK_D=BLOCK_D)
    return dw.to(weight.dtype)


def reference(grad_out: torch.Tensor, ids: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    dw = torch.zeros(weight.shape, dtype=grad_out.dtype, device=grad_out.device)
    return dw.index_add_(0, ids, grad_out)


BUG_CLASS = "uninitialized-accumulator"

spec = kcheck.Spec(
    name="hx13_embedding_grad",
    kernel=embedding_grad,
    reference=reference,
    inputs=[kcheck.Tensor("T", "D", name="grad_out"), kcheck.Index("T", high="V", name="ids"),
            kcheck.Tensor("V", "D", name="weight", pattern="zeros")],
    dims={"T": kcheck.Dim(nominal=128, real=()), "V": kcheck.Dim(nominal=64, min=1, real=()),
          "D": kcheck.Dim(nominal=96, real=())},
    reduce=["T"],
    configs=[{"BLOCK_D": 128}, {"BLOCK_D": 32}],
)
