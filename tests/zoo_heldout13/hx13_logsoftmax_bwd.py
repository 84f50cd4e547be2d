"""Backward of log-softmax over the last axis, as a standalone launcher: given the forward's output y = log_softmax(x)
and the upstream gradient g, dx = g - exp(y) * sum_j g[:, j]. Several rows per program when rows fit one block.
Row offsets are int64.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def logsoftmax_bwd_kernel(g_ptr, y_ptr, dx_ptr, M, N, stride_gm, stride_gn, stride_ym, stride_yn,
                          stride_dm, stride_dn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    g = tl.load(g_ptr + rows[:, None] * N + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + rows[:, None] * stride_ym + cols[None, :] * stride_yn, mask=mask, other=0.0).to(tl.float32)
    gsum = tl.sum(g, axis=1)
    dx = g - tl.exp(y) * gsum[:, None]
    tl.store(dx_ptr + rows[:, None] * stride_dm + cols[None, :] * stride_dn, dx.to(dx_ptr.dtype.element_ty), mask=mask)


def logsoftmax_backward(grad: torch.Tensor, y: torch.Tensor, TILE: int = 4096) -> torch.Tensor:
    M, N = grad.shape
    dx = torch.empty((M, N), dtype=grad.dtype, device=grad.device)
    if M == 0 or N == 0:
        return dx
    block_n = triton.next_power_of_2(N)
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    logsoftmax_bwd_kernel[(triton.cdiv(M, block_m),)](
        grad, y, dx, M, N, grad.stride(0), grad.stride(1), y.stride(0), y.stride(1), dx.stride(0), dx.stride(1),
        BLOCK_M=block_m, BLOCK_N=block_n)
    return dx


def log_probs(ctx: kcheck.CaseContext) -> torch.Tensor:
    M, N = ctx.dims["M"], ctx.dims["N"]
    return torch.log_softmax(ctx.randn(M, N, dtype=torch.float32) * 3.0, dim=-1).to(ctx.dtype)


def reference(grad: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return grad - torch.exp(y) * grad.sum(-1, keepdim=True)


BUG_CLASS = "stride-assumption"

spec = kcheck.Spec(
    name="hx13_logsoftmax_bwd",
    kernel=logsoftmax_backward,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="grad"), kcheck.Custom(log_probs, name="y", dims=("M", "N"))],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=256, max=4096, real=(2880,))},
    reduce=["N"],
    configs=[{"TILE": 4096}, {"TILE": 1024}],
)
