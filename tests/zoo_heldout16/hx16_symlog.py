"""symlog(x) = sign(x) * log(1 + |x|), the squashing DreamerV3 applies to rewards, values and observations.
2-D tiles over a (M, N) tensor of any strides; log1p by Goldberg's trick (log(u) * a / (u - 1) with u = 1 + a),
exact for tiny |x| where log(1 + |x|) would round to 0; computed in fp32, stored in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "int32-overflow"


@triton.jit
def symlog_kernel(x_ptr, y_ptr, M, N, sxm, sxn, sym, syn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    x = tl.load(x_ptr + rows[:, None] * sxm + cols[None, :] * sxn, mask=mask, other=0.0).to(tl.float32)
    a = tl.abs(x)
    u = 1.0 + a
    d = u - 1.0
    mag = tl.where(d == 0.0, a, tl.log(u) * (a / d))
    mag = tl.where(u == float("inf"), u, mag)
    y = tl.where(x < 0.0, -mag, mag)
    tl.store(y_ptr + rows[:, None] * sym + cols[None, :] * syn, y.to(y_ptr.dtype.element_ty), mask=mask)


def symlog(x: torch.Tensor, BLOCK_M: int = 16, BLOCK_N: int = 128) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M and N:
        grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
        symlog_kernel[grid](x, y, M, N, x.stride(0), x.stride(1), y.stride(0), y.stride(1),
                            BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return y


spec = kcheck.Spec(
    name="hx16_symlog",
    kernel=symlog,
    reference=lambda x: torch.sign(x) * torch.log1p(x.abs()),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=512, max=65535 * 128)},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 128}, {"BLOCK_M": 4, "BLOCK_N": 512}],
)
