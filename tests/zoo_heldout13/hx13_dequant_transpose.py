"""Weight repacking for a GEMM: apply the per-output-channel scale of a quantized weight and write it transposed,
out[k, n] = w[n, k] * scale[n] (w is [N, K], out is [K, N] so that the GEMM reads K-major tiles).

2-D tiles of BLOCK_N x BLOCK_K; the weight is made contiguous by the launcher, so tile addresses are computed from
the shapes. Offsets are int64.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def dequant_t_kernel(w_ptr, s_ptr, o_ptr, N, K, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_n = tl.program_id(0).to(tl.int64)
    pid_k = tl.program_id(1).to(tl.int64)
    n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    k = pid_k * BLOCK_K + tl.arange(0, BLOCK_K).to(tl.int64)
    mask = (n < N)[:, None] & (k < K)[None, :]
    w = tl.load(w_ptr + n[:, None] * N + k[None, :], mask=mask, other=0.0).to(tl.float32)
    s = tl.load(s_ptr + n, mask=n < N, other=0.0).to(tl.float32)
    y = w * s[:, None]
    tl.store(o_ptr + k[None, :] * N + n[:, None], y.to(o_ptr.dtype.element_ty), mask=mask)


def dequant_transpose(w: torch.Tensor, scale: torch.Tensor, BLOCK_N: int = 32, BLOCK_K: int = 32) -> torch.Tensor:
    N, K = w.shape
    w = w.contiguous()
    scale = scale.contiguous()
    out = torch.empty((K, N), dtype=w.dtype, device=w.device)
    if N == 0 or K == 0:
        return out
    grid = (triton.cdiv(N, BLOCK_N), triton.cdiv(K, BLOCK_K))
    dequant_t_kernel[grid](w, scale, out, N, K, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return out


def reference(w: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    return (w * scale[:, None]).t()


BUG_CLASS = "index-transposition"

spec = kcheck.Spec(
    name="hx13_dequant_transpose",
    kernel=dequant_transpose,
    reference=reference,
    inputs=[kcheck.Tensor("N", "K", name="w"), kcheck.Tensor("N", name="scale", pattern="randn")],
    dims={"N": kcheck.Dim(nominal=96, max=65535 * 32, real=()), "K": kcheck.Dim(nominal=160, max=65535 * 16,
                                                                                  real=())},
    configs=[{"BLOCK_N": 32, "BLOCK_K": 32}, {"BLOCK_N": 64, "BLOCK_K": 16}],
)
