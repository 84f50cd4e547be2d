"""Row softmax, numerically stable: exp(x - rowmax) / sum, computed in fp32, returned in the input dtype.

Rows that fit one block (N <= BLOCK_N) are read once, several rows per program. Longer rows (a 128256-entry
vocabulary) take two passes over BLOCK_N-wide chunks: an online pass keeps a running max and a rescaled running sum
per lane, then a second pass writes exp(x - max) / sum. Row offsets are int64 (M*N may pass 2**31).
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def softmax_kernel(x_ptr, out_ptr, M, N, stride_xm, stride_xn, stride_om, stride_on,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, ONE_PASS: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = (rows < M)[:, None]
    x_row = x_ptr + rows[:, None] * stride_xm
    o_row = out_ptr + rows[:, None] * stride_om
    if ONE_PASS:
        cols = tl.arange(0, BLOCK_N).to(tl.int64)[None, :]
        mask = row_mask & (cols < N)
        x = tl.load(x_row + cols * stride_xn, mask=mask, other=-float("inf")).to(tl.float32)
        m = tl.max(x, axis=1)
        p = tl.exp(x - m[:, None])
        p = tl.where(mask, p, 0.0)
        y = p / tl.sum(p, axis=1)[:, None]
        tl.store(o_row + cols * stride_on, y.to(out_ptr.dtype.element_ty), mask=mask)
    else:
        # pass 1: per-lane running max and sum of exp(x - running max), rescaled when the max grows
        m_lane = tl.full([BLOCK_M, BLOCK_N], -float("inf"), dtype=tl.float32)
        s_lane = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N).to(tl.int64)[None, :]
            mask = row_mask & (cols < N)
            x = tl.load(x_row + cols * stride_xn, mask=mask, other=-float("inf")).to(tl.float32)
            # a NaN must win the running max: on a GPU tl.maximum returns the non-NaN operand by default, so a lane
            # whose first value is NaN would stay "dead" and the NaN would drop out of the row's sum
            m_new = tl.maximum(m_lane, x, propagate_nan=tl.PropagateNan.ALL)
            dead = m_new == -float("inf")  # nothing but -inf seen in this lane yet: keep it at 0
            scale = tl.where(dead, 0.0, tl.exp(m_lane - m_new))
            s_lane = s_lane * scale + tl.where(dead, 0.0, tl.exp(x - m_new))
            m_lane = m_new
        m = tl.max(m_lane, axis=1)
        lane_scale = tl.where(m_lane == -float("inf"), 0.0, tl.exp(m_lane - m[:, None]))
        s = tl.sum(s_lane * lane_scale, axis=1)
        inv = 1.0 / s
        # pass 2: write
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N).to(tl.int64)[None, :]
            mask = row_mask & (cols < N)
            x = tl.load(x_row + cols * stride_xn, mask=mask, other=-float("inf")).to(tl.float32)
            y = tl.exp(x - m[:, None]) * inv[:, None]
            tl.store(o_row + cols * stride_on, y.to(out_ptr.dtype.element_ty), mask=mask)


def softmax(x: torch.Tensor, BLOCK_N: int = 4096, TILE: int = 4096) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    one_pass = N <= BLOCK_N
    block_n = triton.next_power_of_2(N) if one_pass else BLOCK_N
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    softmax_kernel[(triton.cdiv(M, block_m),)](
        x, out, M, N, x.stride(0), x.stride(1), out.stride(0), out.stride(1),
        BLOCK_M=block_m, BLOCK_N=block_n, ONE_PASS=one_pass)
    return out


spec = kcheck.Spec(
    name="softmax",
    kernel=softmax,
    reference=lambda x: torch.softmax(x, dim=-1),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024)},
    reduce=["N"],
    configs=[{"BLOCK_N": 4096}, {"BLOCK_N": 256}],
    properties=[kcheck.props.shift_invariant(0)],
)
