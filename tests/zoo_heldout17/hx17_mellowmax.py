"""Mellowmax operator over action values (reinforcement learning: a differentiable alternative to max in TD targets).

mm(q)[b] = log(mean_a exp(omega * q[b, a])) / omega, computed stably per row: a first pass over the row finds the
maximum m, a second sums exp(omega * (q - m)), and mm = m + log(sum / A) / omega. One program per row, chunks of
BLOCK_A, fp32 throughout; omega is a mode.
"""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "exp-overflow"


@triton.jit
def mellowmax_kernel(q_ptr, out_ptr, A, stride_qb, stride_qa, omega, BLOCK_A: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = q_ptr + row * stride_qb
    m_vec = tl.full([BLOCK_A], float("-inf"), dtype=tl.float32)
    for a0 in range(0, A, BLOCK_A):
        cols = a0 + tl.arange(0, BLOCK_A)
        q = tl.load(base + cols * stride_qa, mask=cols < A, other=float("-inf")).to(tl.float32)
        m_vec = tl.maximum(m_vec, q)
    m = tl.max(m_vec, axis=0)
    s_vec = tl.zeros([BLOCK_A], dtype=tl.float32)
    for a0 in range(0, A, BLOCK_A):
        cols = a0 + tl.arange(0, BLOCK_A)
        q = tl.load(base + cols * stride_qa, mask=cols < A, other=float("-inf")).to(tl.float32)
        s_vec += tl.exp(omega * q)
    s = tl.sum(s_vec, axis=0)
    mm = tl.log(s / A) / omega
    tl.store(out_ptr + row, mm.to(out_ptr.dtype.element_ty))


def mellowmax(q, omega=5.0, BLOCK_A=128):
    B, A = q.shape
    out = torch.empty((B,), dtype=q.dtype, device=q.device)
    if B and A:
        mellowmax_kernel[(B,)](q, out, A, q.stride(0), q.stride(1), omega, BLOCK_A=BLOCK_A)
    return out


def reference(q, omega=5.0):
    return (torch.logsumexp(omega * q, dim=-1) - math.log(q.shape[-1])) / omega


spec = kcheck.Spec(
    name="hx17_mellowmax",
    kernel=mellowmax,
    reference=reference,
    inputs=[kcheck.Tensor("B", "A")],
    dims={"B": kcheck.Dim(nominal=32), "A": kcheck.Dim(nominal=256, min=1)},
    params={"omega": [5.0, 1.0]},
    patterns=["randn", "zeros", "ones", "eye", "arange", "large", "constant", "large_mean"],
    reduce=["A"],
    configs=[{"BLOCK_A": 128}, {"BLOCK_A": 512}],
)
