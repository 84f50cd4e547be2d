"""L1 normalization of each row, torch.nn.functional.normalize(x, p=1, dim=-1): y = x / sum_j |x_j|.
One program per row: the L1 norm is accumulated in fp32 over BLOCK_N-wide chunks, then a second pass scales the
row. Strides honoured, returned in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def l1_normalize_kernel(x_ptr, out_ptr, N, stride_xm, stride_xn, stride_om, stride_on, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_xm
    o_row = out_ptr + row * stride_om
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = cols < N
        acc += tl.abs(tl.load(x_row + cols * stride_xn, mask=mask, other=0.0).to(tl.float32))
    inv = 1.0 / tl.sum(acc, axis=0)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = cols < N
        x = tl.load(x_row + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
        tl.store(o_row + cols * stride_on, (x * inv).to(out_ptr.dtype.element_ty), mask=mask)


def l1_normalize(x: torch.Tensor, MAX_BLOCK: int = 1024) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    block = min(triton.next_power_of_2(N), MAX_BLOCK)
    l1_normalize_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), out.stride(0), out.stride(1), BLOCK_N=block)
    return out


spec = kcheck.Spec(
    name="hx6_l1_normalize",
    kernel=l1_normalize,
    reference=lambda x: torch.nn.functional.normalize(x, p=1.0, dim=-1),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024)},
    reduce=["N"],
    configs=[{"MAX_BLOCK": 1024}, {"MAX_BLOCK": 256}],
    properties=[kcheck.props.idempotent()],
)

BUG_CLASS = "division-by-zero"
