"""Precipitable water of high-resolution radiosonde soundings: PW[m] = (1 / g) * sum_k q[m, k] * dp[m, k].

q is the specific humidity (kg/kg) and dp the pressure thickness (Pa) of each layer of sounding m; a 1 s sounding
has thousands of layers, so each program walks its BLOCK_M soundings in BLOCK_K-wide chunks, every lane keeping a
running fp32 sum of its products (each product taken in the storage precision, one rounding), summed across
lanes at the end. PW comes out in kg/m^2 (= mm of liquid water).
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "low-precision-accumulation"

GRAVITY = 9.80665  # m / s^2


@triton.jit
def precipitable_water_kernel(q_ptr, dp_ptr, pw_ptr, M, K, inv_g, s_qm, s_qk, s_dm, s_dk, s_pw,
                              BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    rmask = rows < M
    acc = tl.zeros([BLOCK_M, BLOCK_K], dtype=q_ptr.dtype.element_ty)
    for start in range(0, K, BLOCK_K):
        ks = start + tl.arange(0, BLOCK_K).to(tl.int64)
        mask = rmask[:, None] & (ks < K)[None, :]
        q = tl.load(q_ptr + rows[:, None] * s_qm + ks[None, :] * s_qk, mask=mask, other=0.0)
        dp = tl.load(dp_ptr + rows[:, None] * s_dm + ks[None, :] * s_dk, mask=mask, other=0.0)
        acc += q * dp
    pw = tl.sum(acc, axis=1) * inv_g
    tl.store(pw_ptr + rows * s_pw, pw.to(pw_ptr.dtype.element_ty), mask=rmask)


def precipitable_water(q: torch.Tensor, dp: torch.Tensor, BLOCK_M: int = 16, BLOCK_K: int = 32) -> torch.Tensor:
    M, K = q.shape
    pw = torch.empty(M, dtype=q.dtype, device=q.device)
    if M == 0:
        return pw
    if K == 0:
        return pw.zero_()
    precipitable_water_kernel[(triton.cdiv(M, BLOCK_M),)](q, dp, pw, M, K, 1.0 / GRAVITY, q.stride(0), q.stride(1),
                                                          dp.stride(0), dp.stride(1), pw.stride(0),
                                                          BLOCK_M=BLOCK_M, BLOCK_K=BLOCK_K)
    return pw


def reference(q: torch.Tensor, dp: torch.Tensor) -> torch.Tensor:
    return (q * dp).sum(-1) / GRAVITY


spec = kcheck.Spec(
    name="precipitable_water",
    kernel=precipitable_water,
    reference=reference,
    inputs=[kcheck.Tensor("M", "K", name="q"), kcheck.Tensor("M", "K", name="dp")],
    dims={"M": kcheck.Dim(nominal=16, real=()), "K": kcheck.Dim(nominal=8192, real=())},
    reduce=["K"],
    dtypes=["fp32", "fp16"],
    configs=[{"BLOCK_M": 16, "BLOCK_K": 32}, {"BLOCK_M": 4, "BLOCK_K": 128}],
)
