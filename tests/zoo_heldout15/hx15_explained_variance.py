"""Explained variance of a value head, per environment row (the PPO / A2C diagnostic logged by RL trainers):

    ev[m] = 1 - Var_n(returns[m] - values[m]) / (Var_n(returns[m]) + 1e-8)

Row blocks, one sweep: each program takes BLOCK_M rows and walks them in BLOCK_N-wide chunks, accumulating the sums
and sums of squares of the returns and of the residuals in fp32. The result is stored in the inputs' dtype. Row offsets are int64.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "cancellation"

EPS = 1e-8


@triton.jit
def explained_variance_kernel(r_ptr, v_ptr, out_ptr, M, N, s_rm, s_rn, s_vm, s_vn, EPS: tl.constexpr,
                              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_ok = rows < M
    sr = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    srr = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    sd = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    sdd = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_ok[:, None] & (cols < N)[None, :]
        r = tl.load(r_ptr + rows[:, None] * s_rm + cols[None, :] * s_rn, mask=mask, other=0.0).to(tl.float32)
        v = tl.load(v_ptr + rows[:, None] * s_vm + cols[None, :] * s_vn, mask=mask, other=0.0).to(tl.float32)
        a = tl.where(mask, r, 0.0)
        d = tl.where(mask, r - v, 0.0)
        sr += a
        srr += a * a
        sd += d
        sdd += d * d
    mr = tl.sum(sr, axis=1) / N
    md = tl.sum(sd, axis=1) / N
    var_r = tl.sum(srr, axis=1) / N - mr * mr
    var_d = tl.sum(sdd, axis=1) / N - md * md
    var_r = tl.where(var_r < 0.0, 0.0, var_r)
    var_d = tl.where(var_d < 0.0, 0.0, var_d)
    ev = 1.0 - var_d / (var_r + EPS)
    tl.store(out_ptr + rows, ev.to(out_ptr.dtype.element_ty), mask=row_ok)


def explained_variance(returns, values, BLOCK_M=4, BLOCK_N=128):
    M, N = returns.shape
    out = torch.empty((M,), dtype=returns.dtype, device=returns.device)
    if M == 0:
        return out
    explained_variance_kernel[(triton.cdiv(M, BLOCK_M),)](
        returns, values, out, M, N, returns.stride(0), returns.stride(1), values.stride(0), values.stride(1),
        EPS=EPS, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(returns, values):
    var_r = returns.var(-1, unbiased=False)
    var_d = (returns - values).var(-1, unbiased=False)
    return 1.0 - var_d / (var_r + EPS)


spec = kcheck.Spec(
    name="hx15_explained_variance",
    kernel=explained_variance,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="returns"), kcheck.Tensor("M", "N", name="values")],
    dims={"M": kcheck.Dim(nominal=16), "N": kcheck.Dim(nominal=512, min=1, real=(2048,))},
    reduce=["N"],
    configs=[{"BLOCK_M": 4, "BLOCK_N": 128}, {"BLOCK_M": 2, "BLOCK_N": 512}],
)
