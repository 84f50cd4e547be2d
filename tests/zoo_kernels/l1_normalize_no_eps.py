"""Bug class: division by zero (a normalization without its epsilon clamp).

Row-wise L1 normalization, y = x / max(sum(|x|), eps) with eps = 1e-12, as in
``torch.nn.functional.normalize(x, p=1, dim=-1)``. The kernel divides by the sum alone. On randn rows the sum is
~0.8 N, far above eps, and the results agree to the last ulp, so a casual test passes. An all-zero row (padding,
a masked-out token, kcheck's ``zeros`` pattern) gives 0 / 0 = NaN where the reference gives 0, and rows whose sum
is below eps (kcheck's ``tiny`` pattern) come out ~1/N instead of x / eps.
"""

import torch
import triton
import triton.language as tl

import kcheck

EPS = 1e-12


@triton.jit
def l1_normalize_kernel(x_ptr, out_ptr, M, N, stride_xm, stride_xn, stride_om, stride_on,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xn, mask=mask, other=0.0).to(tl.float32)
    norm = tl.sum(tl.abs(x), axis=1)
    y = x / norm[:, None]  # BUG: should be x / tl.maximum(norm, eps)[:, None]
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :] * stride_on, y.to(out_ptr.dtype.element_ty),
             mask=mask)


def l1_normalize(x: torch.Tensor, TILE: int = 4096) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    block_n = triton.next_power_of_2(N)
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    l1_normalize_kernel[(triton.cdiv(M, block_m),)](x, out, M, N, x.stride(0), x.stride(1), out.stride(0),
                                                   out.stride(1), BLOCK_M=block_m, BLOCK_N=block_n)
    return out


spec = kcheck.Spec(
    name="l1_normalize_no_eps",
    kernel=l1_normalize,
    reference=lambda x: torch.nn.functional.normalize(x, p=1, dim=-1, eps=EPS),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024)},
    dtypes=["fp32"],
    reduce=["N"],
)

BUG_CLASS = "division-by-zero"
