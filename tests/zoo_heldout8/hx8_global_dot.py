"""Dot product of two long vectors: out = sum_i x[i] * y[i], as a single fp32 scalar reduced across programs.
Each program covers BLOCK elements and adds its partial sum into a zero-initialized fp32 accumulator; the result
is returned as a 0-d tensor in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def dot_kernel(x_ptr, y_ptr, acc_ptr, N, stride_x, stride_y, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(x_ptr + offs * stride_x, mask=mask, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + offs * stride_y, mask=mask, other=0.0).to(tl.float32)
    tl.store(acc_ptr, tl.sum(x * y, axis=0))


def dot(x: torch.Tensor, y: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    (N,) = x.shape
    acc = torch.zeros((), dtype=torch.float32, device=x.device)
    if N:
        dot_kernel[(triton.cdiv(N, BLOCK),)](x, y, acc, N, x.stride(0), y.stride(0), BLOCK=BLOCK)
    return acc.to(x.dtype)


spec = kcheck.Spec(
    name="hx8_global_dot",
    kernel=dot,
    reference=lambda x, y: torch.dot(x, y),
    inputs=[kcheck.Tensor("N", name="x"), kcheck.Tensor("N", name="y")],
    dims={"N": kcheck.Dim(nominal=8192)},
    reduce=["N"],
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
    properties=[kcheck.props.linear(0)],
)

BUG_CLASS = "missing-atomic"
