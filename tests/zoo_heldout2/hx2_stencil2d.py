"""5-point Laplacian of a 2-D field with zero (Dirichlet) boundary:
out[i, j] = x[i-1, j] + x[i+1, j] + x[i, j-1] + x[i, j+1] - 4 x[i, j], neighbours outside the grid read as 0.
2-D tiles, every neighbour load guarded by its own bound."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def laplacian_kernel(x_ptr, out_ptr, M, N, stride_m, stride_n, stride_om,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    i = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64))[:, None]
    j = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64))[None, :]
    inside = (i < M) & (j < N)
    p = x_ptr + i * stride_m + j * stride_n
    c = tl.load(p, mask=inside, other=0.0).to(tl.float32)
    up = tl.load(p - stride_m, mask=inside & (i >= 1), other=0.0).to(tl.float32)
    down = tl.load(p + stride_m, mask=inside & (i + 1 < M), other=0.0).to(tl.float32)
    left = tl.load(p - stride_n, mask=inside & (j >= 1), other=0.0).to(tl.float32)
    right = tl.load(p + stride_n, mask=inside & (j + 1 <= N), other=0.0).to(tl.float32)
    y = up + down + left + right - 4.0 * c
    tl.store(out_ptr + i * stride_om + j, y.to(out_ptr.dtype.element_ty), mask=inside)


def laplacian(x, BLOCK_M=16, BLOCK_N=32):
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M and N:
        grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
        laplacian_kernel[grid](x, out, M, N, x.stride(0), x.stride(1), out.stride(0),
                               BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(x):
    p = torch.nn.functional.pad(x, (1, 1, 1, 1))
    return p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4 * x


spec = kcheck.Spec(
    name="hx2_stencil2d",
    kernel=laplacian,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=96)},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 32}, {"BLOCK_M": 32, "BLOCK_N": 64}],
)

BUG_CLASS = "off-by-one-mask"
