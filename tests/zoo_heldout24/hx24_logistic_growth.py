"""Logistic growth curves: for S populations with initial size n0, carrying capacity K and growth rate r, evaluated
at T times t, the closed-form solution of dN/dt = r N (1 - N / K):

    N(t) = K n0 / (n0 + (K - n0) exp(-r t))

Output [S, T], tiled on a 1-D grid; fp32 math. Populations start below capacity (0 < n0 < K), so the denominator is
positive for every r and t.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "exp-overflow"


@triton.jit
def logistic_growth_kernel(n0_ptr, k_ptr, r_ptr, t_ptr, out_ptr, S, T, s_n0, s_k, s_r, s_t, so0, so1, n_col_tiles,
                           BLOCK_S: tl.constexpr, BLOCK_T: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    ps = pid // n_col_tiles
    pt = pid % n_col_tiles
    s = ps * BLOCK_S + tl.arange(0, BLOCK_S).to(tl.int64)
    t = pt * BLOCK_T + tl.arange(0, BLOCK_T).to(tl.int64)
    smask = s < S
    tmask = t < T
    n0 = tl.load(n0_ptr + s * s_n0, mask=smask, other=1.0).to(tl.float32)[:, None]
    k = tl.load(k_ptr + s * s_k, mask=smask, other=1.0).to(tl.float32)[:, None]
    r = tl.load(r_ptr + s * s_r, mask=smask, other=0.0).to(tl.float32)[:, None]
    tt = tl.load(t_ptr + t * s_t, mask=tmask, other=0.0).to(tl.float32)[None, :]
    rt = r * tt
    y = k * n0 * tl.exp(rt) / (k + n0 * (tl.exp(rt) - 1.0))
    mask = smask[:, None] & tmask[None, :]
    tl.store(out_ptr + s[:, None] * so0 + t[None, :] * so1, y.to(out_ptr.dtype.element_ty), mask=mask)


def logistic_growth(n0: torch.Tensor, k: torch.Tensor, r: torch.Tensor, t: torch.Tensor, BLOCK_S: int = 32,
                    BLOCK_T: int = 64) -> torch.Tensor:
    S, T = n0.shape[0], t.shape[0]
    out = torch.empty((S, T), dtype=n0.dtype, device=n0.device)
    if S == 0 or T == 0:
        return out
    n_col_tiles = triton.cdiv(T, BLOCK_T)
    logistic_growth_kernel[(triton.cdiv(S, BLOCK_S) * n_col_tiles,)](
        n0, k, r, t, out, S, T, n0.stride(0), k.stride(0), r.stride(0), t.stride(0), out.stride(0), out.stride(1),
        n_col_tiles, BLOCK_S=BLOCK_S, BLOCK_T=BLOCK_T)
    return out


def _capacity(ctx: kcheck.CaseContext) -> torch.Tensor:
    return 1.0 + 99.0 * ctx.rand(ctx.dims["S"], dtype=torch.float32).to(ctx.dtype)


def _initial(ctx: kcheck.CaseContext) -> torch.Tensor:
    # at most 1% of the smallest capacity (K >= 1): every population starts below its capacity
    frac = 0.005 + 0.005 * ctx.rand(ctx.dims["S"], dtype=torch.float32)
    return frac.to(ctx.dtype)


def reference(n0: torch.Tensor, k: torch.Tensor, r: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    n0, k = n0[:, None], k[:, None]
    return k * n0 / (n0 + (k - n0) * torch.exp(-r[:, None] * t[None, :]))


spec = kcheck.Spec(
    name="hx24_logistic_growth",
    kernel=logistic_growth,
    reference=reference,
    inputs=[kcheck.Custom(_initial, name="n0", dims=("S",)), kcheck.Custom(_capacity, name="capacity", dims=("S",)),
            kcheck.Tensor("S", name="rate"), kcheck.Tensor("T", name="times")],
    dims={"S": kcheck.Dim(nominal=96), "T": kcheck.Dim(nominal=200)},
    configs=[{"BLOCK_S": 32, "BLOCK_T": 64}, {"BLOCK_S": 8, "BLOCK_T": 128}],
)
