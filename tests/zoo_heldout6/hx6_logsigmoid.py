"""LogSigmoid, y = log(1 / (1 + exp(-x))) = min(x, 0) - log(1 + exp(-|x|)), elementwise over a 2-D tensor in
BLOCK_M x BLOCK_N tiles, computed in fp32, strides honoured on input and output."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def logsigmoid_kernel(x_ptr, out_ptr, M, N, stride_xm, stride_xn, stride_om, stride_on,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xn, mask=mask, other=0.0)
    x = x.to(tl.float32)
    y = tl.minimum(x, 0.0) - tl.log(1.0 + tl.exp(-tl.abs(x)))
    y = tl.where(x != x, x, y)
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :] * stride_on, y.to(out_ptr.dtype.element_ty),
             mask=mask)


def logsigmoid(x: torch.Tensor, BLOCK_M: int = 16, BLOCK_N: int = 128) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    grid = (M // BLOCK_M, triton.cdiv(N, BLOCK_N))
    logsigmoid_kernel[grid](x, out, M, N, x.stride(0), x.stride(1), out.stride(0), out.stride(1),
                            BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


spec = kcheck.Spec(
    name="hx6_logsigmoid",
    kernel=logsigmoid,
    reference=torch.nn.functional.logsigmoid,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=512)},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 128}, {"BLOCK_M": 32, "BLOCK_N": 64}],
)

BUG_CLASS = "tail-tile-dropped"
