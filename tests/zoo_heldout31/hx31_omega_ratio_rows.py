"""Omega ratio of M return series at a threshold tau (portfolio analytics): the expected gain above tau over the
expected loss below it, Omega[m] = sum_n max(r[m, n] - tau, 0) / sum_n max(tau - r[m, n], 0). One program per
series, the whole series in one power-of-two block (N <= 8192), fp32 sums; int64 row offsets, strides honoured."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "kernel-raises"


@triton.jit
def omega_kernel(r_ptr, out_ptr, N, tau, s_rm, s_rn, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    mask = cols < N
    r = tl.load(r_ptr + row * s_rm + cols * s_rn, mask=mask, other=tau).to(tl.float32)
    # a NaN return must reach the ratio (tl.maximum on a GPU returns the operand that is not NaN)
    gain = tl.sum(tl.maximum(r - tau, 0.0, propagate_nan=tl.PropagateNan.ALL), axis=0)
    loss = tl.sum(tl.maximum(tau - r, 0.0, propagate_nan=tl.PropagateNan.ALL), axis=0)
    tl.store(out_ptr + row, (gain / loss).to(out_ptr.dtype.element_ty))


def omega_ratio(r: torch.Tensor, tau: float = 0.0) -> torch.Tensor:
    M, N = r.shape
    out = torch.empty((M,), dtype=r.dtype, device=r.device)
    if M == 0:
        return out
    block_n = max(N, 1)
    omega_kernel[(M,)](r, out, N, tau, r.stride(0), r.stride(1), BLOCK_N=block_n)
    return out


def reference(r: torch.Tensor, tau: float = 0.0) -> torch.Tensor:
    gain = (r - tau).clamp(min=0).sum(-1)
    loss = (tau - r).clamp(min=0).sum(-1)
    return gain / loss


spec = kcheck.Spec(
    name="hx31_omega_ratio_rows",
    kernel=omega_ratio,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="returns")],
    params={"tau": [0.0, 0.25]},
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=256, max=8192)},
    reduce=["N"],
)
