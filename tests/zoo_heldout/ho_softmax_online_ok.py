"""Row softmax for long rows (vocabulary logits): one program per row; a first pass over BLOCK_N-wide chunks keeps
a per-lane running max and a rescaled running sum of exponentials (fp32), a second pass writes exp(x - max) / sum
in the input dtype. Int64 offsets, any strides."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None
GPU_ONLY = False


@triton.jit
def _softmax_kernel(x_ptr, y_ptr, N, stride_xm, stride_xn, stride_ym, stride_yn, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_xm
    y_row = y_ptr + row * stride_ym
    m_lane = tl.full([BLOCK_N], -float("inf"), dtype=tl.float32)
    s_lane = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        x = tl.load(x_row + cols * stride_xn, mask=cols < N, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m_lane, x, propagate_nan=tl.PropagateNan.ALL)
        empty = m_new == -float("inf")
        s_lane = s_lane * tl.where(empty, 0.0, tl.exp(m_lane - m_new)) + tl.where(empty, 0.0, tl.exp(x - m_new))
        m_lane = m_new
    m = tl.max(m_lane, axis=0)
    s = tl.sum(s_lane * tl.where(m_lane == -float("inf"), 0.0, tl.exp(m_lane - m)), axis=0)
    inv = 1.0 / s
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = cols < N
        x = tl.load(x_row + cols * stride_xn, mask=mask, other=-float("inf")).to(tl.float32)
        tl.store(y_row + cols * stride_yn, (tl.exp(x - m) * inv).to(y_ptr.dtype.element_ty), mask=mask)


def softmax(x: torch.Tensor, BLOCK_N: int = 1024) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return y
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    _softmax_kernel[(M,)](x, y, N, x.stride(0), x.stride(1), y.stride(0), y.stride(1), BLOCK_N=block_n)
    return y


spec = kcheck.Spec(
    name="ho_softmax_online_ok",
    kernel=softmax,
    reference=lambda x: torch.softmax(x, dim=-1),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=512, real=(2880,))},
    reduce=["N"],
    configs=[{"BLOCK_N": 1024}, {"BLOCK_N": 128}],
)
