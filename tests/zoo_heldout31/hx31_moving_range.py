"""Moving range of a process signal (statistical process control): mr[m, n] = |x[m, n + 1] - x[m, n]| for each of
the M monitored series, the input of an individuals/moving-range control chart. Several rows per program, columns
in BLOCK_N chunks, int64 row offsets, strides honoured; differences taken in fp32."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "off-by-one-mask"


@triton.jit
def moving_range_kernel(x_ptr, out_ptr, M, N, s_xm, s_xn, s_om, s_on,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = (rows < M)[:, None]
    for start in range(0, N - 1, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask & (cols < N)[None, :]
        x0 = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
        x1 = tl.load(x_ptr + rows[:, None] * s_xm + (cols + 1)[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
        mr = tl.abs(x1 - x0)
        tl.store(out_ptr + rows[:, None] * s_om + cols[None, :] * s_on, mr.to(out_ptr.dtype.element_ty), mask=mask)


def moving_range(x: torch.Tensor, BLOCK_N: int = 256) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, max(N - 1, 0)), dtype=x.dtype, device=x.device)
    if M == 0 or N < 2:
        return out
    block_n = min(BLOCK_N, triton.next_power_of_2(N - 1))
    block_m = max(1, min(2048 // block_n, triton.next_power_of_2(M)))
    moving_range_kernel[(triton.cdiv(M, block_m),)](x, out, M, N, x.stride(0), x.stride(1), out.stride(0),
                                                   out.stride(1), BLOCK_M=block_m, BLOCK_N=block_n)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return (x[:, 1:] - x[:, :-1]).abs()


spec = kcheck.Spec(
    name="hx31_moving_range",
    kernel=moving_range,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=500, min=2)},
    configs=[{"BLOCK_N": 256}, {"BLOCK_N": 64}],
)
