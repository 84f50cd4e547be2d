"""DCT-II of each row (unnormalized, as scipy.fft.dct(type=2) / 2):

    X[m, k] = sum_n x[m, n] * cos(pi * k * (2n + 1) / (2N)),   k = 0 .. N-1

computed as a matrix product with the cosine basis generated on the fly: each program owns a BLOCK_M x BLOCK_K
output tile and walks n in BLOCK_N steps, building the basis tile C[n, k] in registers and accumulating
tl.dot(x_tile, C) in fp32 (IEEE fp32 products, not TF32). The phase k * (2n + 1) is reduced modulo 4N in int64
before it is turned into an angle, so the cosine keeps full fp32 accuracy for long rows.
"""

import math

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def dct2_kernel(x_ptr, out_ptr, M, N, s_xm, s_xn, s_om, s_ok, half_pi_over_n,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    rk = tl.program_id(1).to(tl.int64) * BLOCK_K + tl.arange(0, BLOCK_K).to(tl.int64)
    rn = tl.arange(0, BLOCK_N).to(tl.int64)
    acc = tl.zeros((BLOCK_M, BLOCK_K), dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        n = start + rn
        x = tl.load(x_ptr + rm[:, None] * s_xm + n[None, :] * s_xn, mask=(rm[:, None] < M) & (n[None, :] < N),
                    other=0.0).to(tl.float32)
        phase = ((2 * rk[None, :] + 1) * n[:, None]) % (4 * N)
        basis = tl.cos(phase.to(tl.float32) * half_pi_over_n)
        basis = tl.where((n[:, None] < N) & (rk[None, :] < N), basis, 0.0)
        acc = tl.dot(x, basis, acc, input_precision="ieee")
    tl.store(out_ptr + rm[:, None] * s_om + rk[None, :] * s_ok, acc.to(out_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rk[None, :] < N))


def dct2(x, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32):
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_K))
    dct2_kernel[grid](x, out, M, N, x.stride(0), x.stride(1), out.stride(0), out.stride(1), math.pi / (2 * N),
                      BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return out


def reference(x):
    N = x.shape[-1]
    n = torch.arange(N, dtype=torch.float64)
    k = torch.arange(N, dtype=torch.float64)
    basis = torch.cos(math.pi * (2 * n[:, None] + 1) * k[None, :] / (2 * N))
    return x @ basis.to(x.dtype)


BUG_CLASS = "index-transposition"

spec = kcheck.Spec(
    name="hx18_dct2_rows",
    kernel=dct2,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=128, max=1024, real=())},
    reduce=["N"],
    configs=[{"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32}, {"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_K": 64}],
)
