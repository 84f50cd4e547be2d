"""Vector strength of spike phase locking (neuroscience, auditory nerve recordings): for M trials of N spikes with
phases phi[m, k] (radians) relative to the stimulus cycle,

    VS[m] = sqrt((sum_k cos phi)^2 + (sum_k sin phi)^2) / N

1 for perfect locking, near 0 for spikes spread over the cycle. Each trial fits one block (N <= 8192, several
trials per program); sums in fp32, the result in the input dtype; int64 offsets, any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "kernel-raises"


@triton.jit
def vector_strength_kernel(phi_ptr, out_ptr, M, N, stride_m, stride_n, BLOCK_M: tl.constexpr,
                           BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    row_mask = rows < M
    mask = row_mask[:, None] & (cols < N)[None, :]
    phi = tl.load(phi_ptr + rows[:, None] * stride_m + cols[None, :] * stride_n, mask=mask, other=0.0)
    phi = phi.to(tl.float32)
    c = tl.sum(tl.where(mask, tl.cos(phi), 0.0), axis=1)
    s = tl.sum(tl.where(mask, tl.sin(phi), 0.0), axis=1)
    vs = tl.sqrt(c * c + s * s) / N
    tl.store(out_ptr + rows, vs.to(out_ptr.dtype.element_ty), mask=row_mask)


def vector_strength(phi: torch.Tensor, TILE: int = 4096) -> torch.Tensor:
    M, N = phi.shape
    out = torch.empty((M,), dtype=phi.dtype, device=phi.device)
    if M == 0:
        return out
    block_n = N
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    vector_strength_kernel[(triton.cdiv(M, block_m),)](phi, out, M, N, phi.stride(0), phi.stride(1),
                                                       BLOCK_M=block_m, BLOCK_N=block_n)
    return out


def reference(phi: torch.Tensor) -> torch.Tensor:
    return torch.sqrt(torch.cos(phi).sum(-1) ** 2 + torch.sin(phi).sum(-1) ** 2) / phi.shape[-1]


spec = kcheck.Spec(
    name="hx38_vector_strength",
    kernel=vector_strength,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="spike_phase")],
    dims={"M": kcheck.Dim(nominal=100), "N": kcheck.Dim(nominal=256, min=1, max=8192)},
    reduce=["N"],
    configs=[{"TILE": 4096}, {"TILE": 512}],
)
