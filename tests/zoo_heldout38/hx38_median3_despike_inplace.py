"""In-place despiking of instrument records with a running median of three (oceanography: CTD and mooring time
series): each of M records of N samples is replaced, in place, by

    x[m, n] <- median(x[m, n-1], x[m, n], x[m, n+1])      (the end samples are kept: their window is replicated)

The kernel reads a snapshot of the records and writes the records themselves, [BLOCK_M, BLOCK_N] tiles, any
strides; the median of three is max(min(a, b), min(max(a, b), c)). Records are finite (gaps were filled before).
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "race"


@triton.jit
def median3_kernel(src_ptr, dst_ptr, M, N, stride_sm, stride_sn, stride_dm, stride_dn,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    src_rows = src_ptr + rows[:, None] * stride_sm
    left = tl.maximum(cols - 1, 0)
    right = tl.minimum(cols + 1, N - 1)
    a = tl.load(src_rows + left[None, :] * stride_sn, mask=mask, other=0.0)
    b = tl.load(src_rows + cols[None, :] * stride_sn, mask=mask, other=0.0)
    c = tl.load(src_rows + right[None, :] * stride_sn, mask=mask, other=0.0)
    med = tl.maximum(tl.minimum(a, b), tl.minimum(tl.maximum(a, b), c))
    tl.store(dst_ptr + rows[:, None] * stride_dm + cols[None, :] * stride_dn, med, mask=mask)


def median3_despike_(x: torch.Tensor, BLOCK_N: int = 128, BLOCK_M: int = 8) -> torch.Tensor:
    M, N = x.shape
    if M == 0 or N == 0:
        return x
    src = x
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, block_n))
    median3_kernel[grid](src, x, M, N, src.stride(0), src.stride(1), x.stride(0), x.stride(1),
                         BLOCK_M=BLOCK_M, BLOCK_N=block_n)
    return x


def reference(x: torch.Tensor) -> torch.Tensor:
    padded = torch.cat([x[:, :1], x, x[:, -1:]], dim=1)
    window = torch.stack([padded[:, :-2], padded[:, 1:-1], padded[:, 2:]], dim=0)
    return window.median(dim=0).values


spec = kcheck.Spec(
    name="hx38_median3_despike_inplace",
    kernel=median3_despike_,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="records", mutated=True)],
    dims={"M": kcheck.Dim(nominal=24), "N": kcheck.Dim(nominal=1500)},
    patterns=["randn", "zeros", "ones", "eye", "arange", "large", "tiny", "constant", "large_mean"],
    configs=[{"BLOCK_N": 128, "BLOCK_M": 8}, {"BLOCK_N": 32, "BLOCK_M": 16}],
)
