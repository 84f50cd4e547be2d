"""Row log-softmax, y = x - logsumexp(x), numerically stable, fp32 statistics, returned in the input dtype.

One program per row. Pass 1 keeps a per-lane running max and a running sum of exp(x - max), rescaled when the max
grows (NaN wins the max); pass 2 writes (x - max) - log(sum), so that a
large common offset cancels before any rounding. Strides honoured."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def log_softmax_kernel(x_ptr, out_ptr, N, stride_xm, stride_xn, stride_om, stride_on, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * stride_xm
    o_row = out_ptr + row * stride_om
    m_lane = tl.full([BLOCK_N], -float("inf"), dtype=tl.float32)
    s_lane = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < N
        x = tl.load(x_row + cols * stride_xn, mask=mask, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m_lane, x, propagate_nan=tl.PropagateNan.ALL)
        dead = m_new == -float("inf")
        scale = tl.where(dead, 0.0, tl.exp(m_lane - m_new))
        s_lane = s_lane * scale + tl.where(dead, 0.0, tl.exp(x - m_new))
        m_lane = m_new
    m = tl.max(m_lane, axis=0)
    lane_scale = tl.where(m_lane == -float("inf"), 0.0, tl.exp(m_lane - m))
    log_s = tl.log(tl.sum(s_lane * lane_scale, axis=0))
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < N
        x = tl.load(x_row + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
        tl.store(o_row + cols * stride_on, ((x - m) - log_s).to(out_ptr.dtype.element_ty), mask=mask)


def log_softmax(x: torch.Tensor, MAX_BLOCK: int = 2048) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    block = min(triton.next_power_of_2(N), MAX_BLOCK)
    log_softmax_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), out.stride(0), out.stride(1), BLOCK_N=block)
    return out


spec = kcheck.Spec(
    name="hx6_log_softmax",
    kernel=log_softmax,
    reference=lambda x: torch.log_softmax(x, dim=-1),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024)},
    reduce=["N"],
    configs=[{"MAX_BLOCK": 2048}, {"MAX_BLOCK": 256}],
    properties=[kcheck.props.shift_invariant(0)],
)

BUG_CLASS = "int32-overflow"
