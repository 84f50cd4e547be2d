"""Softmax backward over the last dimension: given the forward output y and the upstream gradient dy,
dx = y * (dy - sum_n(dy * y)). One program per row: a first pass over BLOCK_N chunks forms the row's dot product in
fp32, a second pass writes dx in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def softmax_bwd_kernel(y_ptr, dy_ptr, dx_ptr, N, stride_ym, stride_yn, stride_gm, stride_gn, stride_xm,
                       BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    y_row = y_ptr + row * stride_ym
    g_row = dy_ptr + row * stride_gm
    x_row = dx_ptr + row * stride_xm
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < N
        y = tl.load(y_row + cols * stride_yn, mask=mask, other=0.0).to(tl.float32)
        g = tl.load(g_row + cols * stride_gn, mask=mask, other=0.0).to(tl.float32)
        acc += y * g
    dot = tl.sum(acc, axis=0)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < N
        y = tl.load(y_row + cols * stride_yn, mask=mask, other=0.0).to(tl.float32)
        g = tl.load(g_row + cols * stride_gn, mask=mask, other=0.0).to(tl.float32)
        tl.store(x_row + cols, (y * (g - dot)).to(dx_ptr.dtype.element_ty), mask=mask)


def softmax_backward(y: torch.Tensor, dy: torch.Tensor, BLOCK_N: int = 512) -> torch.Tensor:
    M, N = y.shape
    dx = torch.empty((M, N), dtype=y.dtype, device=y.device)
    if M == 0 or N == 0:
        return dx
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    softmax_bwd_kernel[(M,)](y, dy, dx, N, y.stride(0), y.stride(1), dy.stride(0), dy.stride(1), dx.stride(0),
                             BLOCK_N=block_n)
    return dx


def reference(y: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
    return y * (dy - (dy * y).sum(-1, keepdim=True))


spec = kcheck.Spec(
    name="hx8_softmax_backward",
    kernel=softmax_backward,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="y"), kcheck.Tensor("M", "N", name="dy")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1024)},
    reduce=["N"],
    configs=[{"BLOCK_N": 512}, {"BLOCK_N": 128}],
    properties=[kcheck.props.linear(1)],
)

BUG_CLASS = "int32-overflow"
