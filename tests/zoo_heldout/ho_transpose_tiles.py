"""Tiled 2-D transpose, y = x.T, through BLOCK x BLOCK tiles; any input strides, int64 offsets."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "index-transposition"
GPU_ONLY = False


@triton.jit
def _transpose_kernel(x_ptr, y_ptr, M, N, stride_xm, stride_xn, stride_ym, stride_yn,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tile = tl.load(x_ptr + rm[:, None] * stride_xm + rn[None, :] * stride_xn, mask=mask)
    tl.store(y_ptr + rn[None, :] * stride_ym + rm[:, None] * stride_yn, tile, mask=mask)


def transpose(x: torch.Tensor, BLOCK: int = 64) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty((N, M), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return y
    grid = (triton.cdiv(N, BLOCK), triton.cdiv(M, BLOCK))
    _transpose_kernel[grid](x, y, M, N, x.stride(0), x.stride(1), y.stride(0), y.stride(1),
                            BLOCK_M=BLOCK, BLOCK_N=BLOCK)
    return y


spec = kcheck.Spec(
    name="ho_transpose_tiles",
    kernel=transpose,
    reference=lambda x: x.t().contiguous(),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128, real=(2880,)), "N": kcheck.Dim(nominal=256, real=(37,))},
    configs=[{"BLOCK": 64}, {"BLOCK": 32}],
)
