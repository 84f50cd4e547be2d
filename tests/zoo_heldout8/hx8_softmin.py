"""Row softmin: out = softmax(-x) over the last dimension, computed in fp32 and returned in the input dtype.
One program per row, two passes over BLOCK_N chunks: the row's normalizer, then the normalized write.
int64 row offsets."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def softmin_kernel(x_ptr, out_ptr, N, stride_xm, stride_xn, stride_om, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_xm
    o_row = out_ptr + row * stride_om
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        x = tl.load(x_row + cols * stride_xn, mask=cols < N, other=float("inf")).to(tl.float32)
        acc += tl.exp(-x)
    inv = 1.0 / tl.sum(acc, axis=0)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < N
        x = tl.load(x_row + cols * stride_xn, mask=mask, other=float("inf")).to(tl.float32)
        tl.store(o_row + cols, (tl.exp(-x) * inv).to(out_ptr.dtype.element_ty), mask=mask)


def softmin(x: torch.Tensor, BLOCK_N: int = 1024) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    softmin_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), out.stride(0), BLOCK_N=block_n)
    return out


spec = kcheck.Spec(
    name="hx8_softmin",
    kernel=softmin,
    reference=lambda x: torch.nn.functional.softmin(x, dim=-1),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=512)},
    reduce=["N"],
    configs=[{"BLOCK_N": 1024}, {"BLOCK_N": 128}],
    properties=[kcheck.props.shift_invariant(0)],
)

BUG_CLASS = "exp-overflow"
