"""ReLU attention weights: w[m, n] = relu(s[m, n]) / sum_n relu(s[m, n]).

One program per BLOCK_M rows, the whole row in one tile; fp32 math, result in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def relu_norm_kernel(s_ptr, out_ptr, M, N, ssm, ssn, som, son, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    s = tl.load(s_ptr + rows[:, None] * ssm + cols[None, :] * ssn, mask=mask, other=0.0).to(tl.float32)
    r = tl.where(s < 0.0, 0.0, s)
    d = tl.sum(r, axis=1)
    w = r / d[:, None]
    tl.store(out_ptr + rows[:, None] * som + cols[None, :] * son, w.to(out_ptr.dtype.element_ty), mask=mask)


def relu_attn_weights(s: torch.Tensor, TILE: int = 4096) -> torch.Tensor:
    M, N = s.shape
    out = torch.empty((M, N), dtype=s.dtype, device=s.device)
    if M and N:
        block_n = triton.next_power_of_2(N)
        block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
        relu_norm_kernel[(triton.cdiv(M, block_m),)](s, out, M, N, s.stride(0), s.stride(1), out.stride(0),
                                                    out.stride(1), BLOCK_M=block_m, BLOCK_N=block_n)
    return out


def reference(s: torch.Tensor) -> torch.Tensor:
    r = torch.relu(s)
    d = r.sum(-1, keepdim=True)
    return r / torch.where(d == 0, torch.ones_like(d), d)


spec = kcheck.Spec(
    name="hx10_relu_attn_weights",
    kernel=relu_attn_weights,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=256)},
    reduce=["N"],
    configs=[{"TILE": 4096}, {"TILE": 512}],
)

BUG_CLASS = "division-by-zero"
