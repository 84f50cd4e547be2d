"""Row L2 normalization (as for embedding similarity): y[m] = x[m] / ||x[m]||_2, fp32 norm, chunked over N."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "division-by-zero"
GPU_ONLY = False


@triton.jit
def _l2norm_kernel(x_ptr, y_ptr, N, stride_xm, stride_xn, stride_ym, stride_yn, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_xm
    y_row = y_ptr + row * stride_ym
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        x = tl.load(x_row + cols * stride_xn, mask=cols < N, other=0.0).to(tl.float32)
        acc += x * x
    inv_norm = 1.0 / tl.sqrt(tl.sum(acc, axis=0))
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < N
        x = tl.load(x_row + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_row + cols * stride_yn, (x * inv_norm).to(y_ptr.dtype.element_ty), mask=mask)


def l2_normalize(x: torch.Tensor, BLOCK_N: int = 1024) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return y
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    _l2norm_kernel[(M,)](x, y, N, x.stride(0), x.stride(1), y.stride(0), y.stride(1), BLOCK_N=block_n)
    return y


spec = kcheck.Spec(
    name="ho_l2_normalize",
    kernel=l2_normalize,
    reference=lambda x: torch.nn.functional.normalize(x, dim=-1),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=384)},
    reduce=["N"],
    configs=[{"BLOCK_N": 1024}, {"BLOCK_N": 128}],
)
