"""Expected payoff under a multinomial logit choice model (McFadden): each row is a decision maker facing N
alternatives with systematic utilities v and payoffs u; alternative j is chosen with probability
P_j = exp(beta v_j) / sum_k exp(beta v_k), and the kernel returns E[u] = sum_j P_j u_j per row. beta (the inverse
scale of the taste shocks) is a mode.

One program per row, two passes over BLOCK_N-wide chunks: the first finds the row's largest beta v, the second sums
exp(beta v - max) and exp(beta v - max) u in fp32 per lane. Strides honoured, int64 row offsets, the expectation
returned in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "exp-overflow"


@triton.jit
def choice_expectation_kernel(v_ptr, u_ptr, out_ptr, N, beta, s_vm, s_vn, s_um, s_un, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    v_row = v_ptr + row * s_vm
    u_row = u_ptr + row * s_um
    m_lane = tl.full([BLOCK_N], -float("inf"), dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        z = beta * tl.load(v_row + cols * s_vn, mask=cols < N, other=-float("inf")).to(tl.float32)
        m_lane = tl.maximum(m_lane, z)
    m = tl.max(m_lane, axis=0)
    den = tl.zeros([BLOCK_N], dtype=tl.float32)
    num = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = cols < N
        z = beta * tl.load(v_row + cols * s_vn, mask=mask, other=-float("inf")).to(tl.float32)
        u = tl.load(u_row + cols * s_un, mask=mask, other=0.0).to(tl.float32)
        w = tl.where(mask, tl.exp(z), 0.0)
        den += w
        num += w * u
    tl.store(out_ptr + row, (tl.sum(num, axis=0) / tl.sum(den, axis=0)).to(out_ptr.dtype.element_ty))


def choice_expectation(v: torch.Tensor, u: torch.Tensor, beta: float = 1.0, BLOCK_N: int = 256) -> torch.Tensor:
    M, N = v.shape
    out = torch.empty((M,), dtype=v.dtype, device=v.device)
    if M == 0 or N == 0:
        return out.zero_()  # no alternative: an empty sum, as torch's reference gives
    choice_expectation_kernel[(M,)](v, u, out, N, float(beta), v.stride(0), v.stride(1), u.stride(0), u.stride(1),
                                    BLOCK_N=BLOCK_N)
    return out


def reference(v: torch.Tensor, u: torch.Tensor, beta: float = 1.0) -> torch.Tensor:
    return (torch.softmax(beta * v, dim=-1) * u).sum(-1)


spec = kcheck.Spec(
    name="hx32_logit_choice_expectation",
    kernel=choice_expectation,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="utility"), kcheck.Tensor("M", "N", name="payoff")],
    dims={"M": kcheck.Dim(nominal=32, real=()), "N": kcheck.Dim(nominal=600, real=(2880,))},
    reduce=["N"],
    params={"beta": [1.0, 4.0]},
    configs=[{"BLOCK_N": 256}, {"BLOCK_N": 64}],
)
