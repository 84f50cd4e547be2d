"""Elementwise log(exp(a) + exp(b)) (torch.logaddexp; e.g. merging two log-probabilities of a CTC / HMM lattice),
computed stably as max(a, b) + log(1 + exp(-|a - b|)).

Equal arguments take max + log 2 directly (so +-inf pairs give +-inf, not inf - inf); NaN propagates through the
max. 2-D, any strides, fp32 math, int64 offsets, flat 1-D grid of [BLOCK_M, BLOCK_N] tiles.
"""

import torch
import triton
import triton.language as tl

import kcheck

LN2 = 0.6931471805599453


@triton.jit
def logaddexp_kernel(a_ptr, b_ptr, out_ptr, M, N, sam, san, sbm, sbn, som, son, n_nblocks,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = (pid // n_nblocks) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = (pid % n_nblocks) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    a = tl.load(a_ptr + rows[:, None] * sam + cols[None, :] * san, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + rows[:, None] * sbm + cols[None, :] * sbn, mask=mask, other=0.0).to(tl.float32)
    m = tl.maximum(a, b, propagate_nan=tl.PropagateNan.ALL)
    d = tl.where(a == b, 0.0, -tl.abs(a - b))
    y = m + tl.log(1.0 + tl.exp(d))
    tl.store(out_ptr + rows[:, None] * som + cols[None, :] * son, y.to(out_ptr.dtype.element_ty), mask=mask)


def logaddexp(a, b, BLOCK_M=8, BLOCK_N=128):
    M, N = a.shape
    out = torch.empty((M, N), dtype=a.dtype, device=a.device)
    if M and N:
        n_nblocks = triton.cdiv(N, BLOCK_N)
        logaddexp_kernel[(triton.cdiv(M, BLOCK_M) * n_nblocks,)](
            a, b, out, M, N, a.stride(0), a.stride(1), b.stride(0), b.stride(1), out.stride(0), out.stride(1),
            n_nblocks, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


spec = kcheck.Spec(
    name="hx11_logaddexp_ok",
    kernel=logaddexp,
    reference=torch.logaddexp,
    inputs=[kcheck.Tensor("M", "N", name="a"), kcheck.Tensor("M", "N", name="b")],
    dims={"M": kcheck.Dim(nominal=96), "N": kcheck.Dim(nominal=160)},
    configs=[{"BLOCK_M": 8, "BLOCK_N": 128}, {"BLOCK_M": 1, "BLOCK_N": 512}],
)

BUG_CLASS = None
