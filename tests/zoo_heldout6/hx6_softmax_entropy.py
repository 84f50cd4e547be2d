"""Entropy of each row's softmax distribution, H = -sum_j p_j log p_j with p = softmax(x), in one pass over the
row: with e_j = exp(x_j), S = sum e_j and T = sum e_j x_j, H = log S - T / S. fp32 sums over BLOCK_N-wide
chunks, one program per row, strides honoured; the result is returned in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def entropy_kernel(x_ptr, out_ptr, N, stride_xm, stride_xn, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_xm
    s_acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    t_acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = cols < N
        x = tl.load(x_row + cols * stride_xn, mask=mask, other=-float("inf")).to(tl.float32)
        e = tl.exp(x)
        s_acc += e
        t_acc += tl.where(e > 0, e * x, 0.0)
    s = tl.sum(s_acc, axis=0)
    t = tl.sum(t_acc, axis=0)
    h = tl.log(s) - t / s
    tl.store(out_ptr + row, h.to(out_ptr.dtype.element_ty))


def softmax_entropy(x: torch.Tensor, MAX_BLOCK: int = 1024) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M,), dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    if N == 0:
        return out.zero_()
    block = min(triton.next_power_of_2(N), MAX_BLOCK)
    entropy_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), BLOCK_N=block)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.special.entr(torch.softmax(x, dim=-1)).sum(dim=-1)


spec = kcheck.Spec(
    name="hx6_softmax_entropy",
    kernel=softmax_entropy,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024)},
    reduce=["N"],
    configs=[{"MAX_BLOCK": 1024}, {"MAX_BLOCK": 256}],
    properties=[kcheck.props.shift_invariant(0)],
)

BUG_CLASS = "exp-overflow"
