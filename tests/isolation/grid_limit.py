"""A 2-D Triton grid with the long axis on y: past 65535 blocks along y (N > 65535 x 256) CUDA refuses the launch."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def _scale_kernel(x_ptr, out_ptr, M, N, BLOCK_N: tl.constexpr):
    m = tl.program_id(0)
    n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = n < N
    tl.store(out_ptr + m * N + n, tl.load(x_ptr + m * N + n, mask=mask) * 2.0, mask=mask)


def scale(x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    M, N = x.shape
    out = torch.empty_like(x)
    if out.numel():
        _scale_kernel[(M, triton.cdiv(N, 256))](x, out, M, N, BLOCK_N=256)
    return out


spec = kcheck.Spec(name="grid_y_limit", kernel=scale, reference=lambda x: x * 2, inputs=[kcheck.Tensor("M", "N")],
                   dims={"M": kcheck.Dim(nominal=2, real=()), "N": kcheck.Dim(nominal=1024, real=())},
                   dtypes=["fp32"])
