"""Heat capacity of gas mixtures from NASA polynomials (combustion chemistry, as in a reacting-flow solver's
thermodynamics step).

Each cell n of the flow holds mole fractions X[n, k] of K species and a reduced temperature tau[n] = T / 1000 K.
Species k has a fourth-order polynomial fit of its molar heat capacity (coefficients A[k, 0..4], for tau):

    cp_k / R = A[k,0] + A[k,1] tau + A[k,2] tau^2 + A[k,3] tau^3 + A[k,4] tau^4
    cp_mix / R = sum_k X[n, k] * cp_k / R

Each program takes BLOCK_N cells with all K species in one block (K <= 128), evaluates the polynomials by
Horner's rule in fp32 and reduces over the species. Strides of every operand are honoured.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "stride-assumption"


@triton.jit
def mixture_cp_kernel(x_ptr, tau_ptr, a_ptr, out_ptr, N, K, s_xn, s_xk, s_t, s_ak, s_aj, s_o,
                      BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    cells = tl.program_id(0).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    sp = tl.arange(0, BLOCK_K).to(tl.int64)
    c_mask = cells < N
    k_mask = sp < K
    mask = c_mask[:, None] & k_mask[None, :]
    x = tl.load(x_ptr + cells[:, None] * s_xn + sp[None, :] * s_xk, mask=mask, other=0.0).to(tl.float32)
    tau = tl.load(tau_ptr + cells * s_t, mask=c_mask, other=0.0).to(tl.float32)[:, None]
    a0 = tl.load(a_ptr + sp * s_ak, mask=k_mask, other=0.0).to(tl.float32)[None, :]
    a1 = tl.load(a_ptr + sp * s_ak + s_aj, mask=k_mask, other=0.0).to(tl.float32)[None, :]
    a2 = tl.load(a_ptr + sp * s_ak + 2 * s_aj, mask=k_mask, other=0.0).to(tl.float32)[None, :]
    a3 = tl.load(a_ptr + sp * s_ak + 3 * s_aj, mask=k_mask, other=0.0).to(tl.float32)[None, :]
    a4 = tl.load(a_ptr + sp * s_ak + 4 * s_aj, mask=k_mask, other=0.0).to(tl.float32)[None, :]
    cp_k = a0 + tau * (a1 + tau * (a2 + tau * (a3 + tau * a4)))
    cp = tl.sum(tl.where(mask, x * cp_k, 0.0), axis=1)
    tl.store(out_ptr + cells * s_o, cp.to(out_ptr.dtype.element_ty), mask=c_mask)


def mixture_heat_capacity(x: torch.Tensor, tau: torch.Tensor, coeffs: torch.Tensor, TILE: int = 2048) -> torch.Tensor:
    N, K = x.shape
    out = torch.empty((N,), dtype=x.dtype, device=x.device)
    if N == 0:
        return out
    block_k = triton.next_power_of_2(max(K, 1))
    block_n = max(1, min(TILE // block_k, triton.next_power_of_2(N)))
    mixture_cp_kernel[(triton.cdiv(N, block_n),)](x, tau, coeffs, out, N, K, K, 1, tau.stride(0),
                                                  coeffs.stride(0), coeffs.stride(1), out.stride(0),
                                                  BLOCK_N=block_n, BLOCK_K=block_k)
    return out


def reference(x: torch.Tensor, tau: torch.Tensor, coeffs: torch.Tensor) -> torch.Tensor:
    t = tau[:, None]
    a = coeffs.T
    cp_k = a[0] + t * (a[1] + t * (a[2] + t * (a[3] + t * a[4])))
    return (x * cp_k).sum(-1)


spec = kcheck.Spec(
    name="hx39_mixture_heat_capacity",
    kernel=mixture_heat_capacity,
    reference=reference,
    inputs=[kcheck.Tensor("N", "K", name="X"), kcheck.Tensor("N", name="tau"), kcheck.Tensor("K", 5, name="A")],
    dims={"N": kcheck.Dim(nominal=500), "K": kcheck.Dim(nominal=53, max=128)},
    reduce=["K"],
    configs=[{"TILE": 2048}, {"TILE": 256}],
)
