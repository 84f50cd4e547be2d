"""DistMult triple scoring for knowledge-graph embeddings: score[m] = sum_n h[m, n] * r[m, n] * t[m, n] for head,
relation and tail embeddings gathered per triple. One program per triple, BLOCK_N-wide chunks with a per-lane
accumulator, summed across lanes at the end and stored in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def distmult_kernel(h_ptr, r_ptr, t_ptr, out_ptr, N, stride_hm, stride_hn, stride_rm, stride_rn, stride_tm, stride_tn,
                    BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros([BLOCK_N], dtype=out_ptr.dtype.element_ty)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < N
        h = tl.load(h_ptr + row * stride_hm + cols * stride_hn, mask=mask, other=0.0).to(tl.float32)
        r = tl.load(r_ptr + row * stride_rm + cols * stride_rn, mask=mask, other=0.0).to(tl.float32)
        t = tl.load(t_ptr + row * stride_tm + cols * stride_tn, mask=mask, other=0.0).to(tl.float32)
        acc += (h * r * t).to(out_ptr.dtype.element_ty)
    score = tl.sum(acc.to(tl.float32), axis=0)
    tl.store(out_ptr + row, score.to(out_ptr.dtype.element_ty))


def distmult(h: torch.Tensor, r: torch.Tensor, t: torch.Tensor, BLOCK_N: int = 256) -> torch.Tensor:
    M, N = h.shape
    out = torch.empty(M, dtype=h.dtype, device=h.device)
    if M == 0:
        return out
    block_n = min(BLOCK_N, triton.next_power_of_2(max(N, 1)))
    distmult_kernel[(M,)](h, r, t, out, N, h.stride(0), h.stride(1), r.stride(0), r.stride(1), t.stride(0),
                          t.stride(1), BLOCK_N=block_n)
    return out


spec = kcheck.Spec(
    name="hx8_distmult_score",
    kernel=distmult,
    reference=lambda h, r, t: (h * r * t).sum(-1),
    inputs=[kcheck.Tensor("M", "N", name="head"), kcheck.Tensor("M", "N", name="relation"),
            kcheck.Tensor("M", "N", name="tail")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=2048)},
    reduce=["N"],
    configs=[{"BLOCK_N": 256}, {"BLOCK_N": 32}],
    properties=[kcheck.props.linear(0)],
)

BUG_CLASS = "low-precision-accumulation"
