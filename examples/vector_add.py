"""Vector add: the smallest Triton kernel, with a tail mask and int64 offsets (safe past 2**31 elements)."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n:
        add_kernel[(triton.cdiv(n, BLOCK),)](x, y, out, n, BLOCK=BLOCK)
    return out


spec = kcheck.Spec(
    name="vector_add",
    kernel=add,
    reference=torch.add,
    inputs=[kcheck.Tensor("N"), kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=4096)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
    properties=[kcheck.props.linear()],
)
