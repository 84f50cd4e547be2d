"""Zero-crossing rate of each row of a batch of audio frames: the fraction of adjacent sample pairs whose signs
differ (a sample counts as non-negative when x >= 0), zcr = crossings / (N - 1), and 0 for rows shorter than 2.
One program per row, a loop over BLOCK_N chunks with an int32 counter, int64 row offsets, any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def zcr_kernel(x_ptr, out_ptr, N, stride_m, stride_n, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = x_ptr + row * stride_m
    count = tl.zeros([BLOCK_N], dtype=tl.int32)
    for start in range(0, N - 1, BLOCK_N):
        i = start + tl.arange(0, BLOCK_N)
        mask = i < N - 1
        a = tl.load(base + i.to(tl.int64) * stride_n, mask=mask, other=0.0)
        b = tl.load(base + (i + 1).to(tl.int64) * stride_n, mask=mask, other=0.0)
        crossed = (a >= 0) != (b >= 0)
        count += tl.where(mask & crossed, 1, 0)
    rate = tl.sum(count, axis=0).to(tl.float32) / (N - 1)
    tl.store(out_ptr + row, rate.to(out_ptr.dtype.element_ty))


def zero_crossing_rate(x: torch.Tensor, BLOCK_N: int = 512) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty(M, dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    if N < 2:
        return out.zero_()
    block_n = min(BLOCK_N, triton.next_power_of_2(N - 1))
    zcr_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), BLOCK_N=block_n)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    N = x.shape[-1]
    if N < 2:
        return x.new_zeros(x.shape[:-1])
    s = x >= 0
    return (s[:, 1:] != s[:, :-1]).sum(-1).to(x.dtype) / (N - 1)


spec = kcheck.Spec(
    name="zero_crossing_rate_ok",
    kernel=zero_crossing_rate,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=16, max=32, real=()), "N": kcheck.Dim(nominal=2048, real=())},
    reduce=["N"],
    configs=[{"BLOCK_N": 512}, {"BLOCK_N": 64}],
)

BUG_CLASS = None
