"""LayerNorm backward, parameter gradients: dgamma[n] = sum_m dy[m, n] * xhat[m, n] and dbeta[n] = sum_m dy[m, n],
where xhat is the normalized input saved by the forward. A 2-D grid: each program sums ROWS rows of one BLOCK_N
column strip in fp32 and adds its partial sums into fp32 buffers with atomics; the buffers are cast to the input
dtype at the end."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def ln_param_grad_kernel(dy_ptr, xhat_ptr, dg_ptr, db_ptr, M, N, stride_dm, stride_dn, stride_xm, stride_xn,
                         ROWS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    row0 = tl.program_id(0).to(tl.int64) * ROWS
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    cmask = cols < N
    acc_g = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    acc_b = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for r in range(0, ROWS, BLOCK_M):
        rows = row0 + r + tl.arange(0, BLOCK_M)
        mask = (rows < M)[:, None] & cmask[None, :]
        dy = tl.load(dy_ptr + rows[:, None] * stride_dm + cols[None, :] * stride_dn, mask=mask, other=0.0)
        xh = tl.load(xhat_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xn, mask=mask, other=0.0)
        dy = dy.to(tl.float32)
        acc_g += dy * xh.to(tl.float32)
        acc_b += dy
    tl.atomic_add(dg_ptr + cols, tl.sum(acc_g, axis=0), mask=cmask)
    tl.atomic_add(db_ptr + cols, tl.sum(acc_b, axis=0), mask=cmask)


def layernorm_param_grad(dy: torch.Tensor, xhat: torch.Tensor, ROWS: int = 64, BLOCK_N: int = 64):
    M, N = dy.shape
    dg = torch.empty(N, dtype=torch.float32, device=dy.device)
    db = torch.empty(N, dtype=torch.float32, device=dy.device)
    if M and N:
        grid = (triton.cdiv(M, ROWS), triton.cdiv(N, BLOCK_N))
        ln_param_grad_kernel[grid](dy, xhat, dg, db, M, N, dy.stride(0), dy.stride(1), xhat.stride(0),
                                   xhat.stride(1), ROWS=ROWS, BLOCK_M=min(16, ROWS), BLOCK_N=BLOCK_N)
    return dg.to(dy.dtype), db.to(dy.dtype)


def reference(dy: torch.Tensor, xhat: torch.Tensor):
    return (dy * xhat).sum(0), dy.sum(0)


spec = kcheck.Spec(
    name="hx8_layernorm_dgamma",
    kernel=layernorm_param_grad,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="dy"), kcheck.Tensor("M", "N", name="xhat")],
    dims={"M": kcheck.Dim(nominal=256), "N": kcheck.Dim(nominal=128)},
    reduce=["M"],
    configs=[{"ROWS": 64, "BLOCK_N": 64}, {"ROWS": 32, "BLOCK_N": 128}],
)

BUG_CLASS = "uninitialized-accumulator"
