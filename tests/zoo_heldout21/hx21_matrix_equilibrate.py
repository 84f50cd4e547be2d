"""Two-sided diagonal scaling (matrix equilibration): out[i, j] = r[i] * x[i, j] * c[j], 2-D tiles, fp32 math,
any strides."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def equilibrate_kernel(x_ptr, r_ptr, c_ptr, out_ptr, M, N, sxm, sxn, som, son,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    rm = rows < M
    cm = cols < N
    mask = rm[:, None] & cm[None, :]
    x = tl.load(x_ptr + rows[:, None] * sxn + cols[None, :] * sxm, mask=mask, other=0.0).to(tl.float32)
    r = tl.load(r_ptr + rows, mask=rm, other=0.0).to(tl.float32)
    c = tl.load(c_ptr + cols, mask=cm, other=0.0).to(tl.float32)
    out = r[:, None] * x * c[None, :]
    tl.store(out_ptr + rows[:, None] * som + cols[None, :] * son, out.to(out_ptr.dtype.element_ty), mask=mask)


def equilibrate(x: torch.Tensor, r: torch.Tensor, c: torch.Tensor, BLOCK_M: int = 32,
                BLOCK_N: int = 64) -> torch.Tensor:
    M, N = x.shape
    r, c = r.contiguous(), c.contiguous()
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M and N:
        grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
        equilibrate_kernel[grid](x, r, c, out, M, N, x.stride(0), x.stride(1), out.stride(0), out.stride(1),
                                 BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(x: torch.Tensor, r: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    return r[:, None] * x * c[None, :]


spec = kcheck.Spec(
    name="hx21_matrix_equilibrate",
    kernel=equilibrate,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("M", name="r"), kcheck.Tensor("N", name="c")],
    dims={"M": kcheck.Dim(nominal=48, max=64, real=()), "N": kcheck.Dim(nominal=256, max=2048)},
    configs=[{"BLOCK_M": 32, "BLOCK_N": 64}, {"BLOCK_M": 16, "BLOCK_N": 32}],
)
BUG_CLASS = "index-transposition"
