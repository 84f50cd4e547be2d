"""Line-of-sight velocity dispersion of star clusters: sigma[r] = sqrt(mean((v[r] - mean(v[r]))^2)) per row.

One program per cluster (row), two passes over the row in BLOCK_N chunks: the mean (and the largest |v|), then
the mean squared deviation from it, both accumulated in fp32. Deviations are scaled by the largest |v| before
squaring, so that subnormal or huge velocities neither underflow nor overflow. int64 row offsets, any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def dispersion_kernel(v_ptr, out_ptr, N, stride_m, stride_n, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = v_ptr + row * stride_m
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    amax = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        v = tl.load(base + cols.to(tl.int64) * stride_n, mask=cols < N, other=0.0).to(tl.float32)
        acc += v
        amax = tl.maximum(amax, tl.abs(v))
    mean = tl.sum(acc, axis=0) / N
    scale = tl.max(amax, axis=0)
    scale = tl.where(scale > 0.0, scale, 1.0)
    acc2 = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < N
        v = tl.load(base + cols.to(tl.int64) * stride_n, mask=mask, other=0.0).to(tl.float32)
        dv = tl.where(mask, v / scale, 0.0)
        acc2 += dv * dv
    var = tl.sum(acc2, axis=0) / N - (mean / scale) * (mean / scale)
    tl.store(out_ptr + row, (tl.sqrt(var) * scale).to(out_ptr.dtype.element_ty))


def velocity_dispersion(v: torch.Tensor, BLOCK_N: int = 512) -> torch.Tensor:
    M, N = v.shape
    out = torch.empty(M, dtype=v.dtype, device=v.device)
    if M == 0:
        return out
    if N == 0:
        return out.fill_(float("nan"))
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    dispersion_kernel[(M,)](v, out, N, v.stride(0), v.stride(1), BLOCK_N=block_n)
    return out


def reference(v: torch.Tensor) -> torch.Tensor:
    return v.std(-1, correction=0)


spec = kcheck.Spec(
    name="velocity_dispersion",
    kernel=velocity_dispersion,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=16, max=32, real=()), "N": kcheck.Dim(nominal=1024, real=())},
    reduce=["N"],
    configs=[{"BLOCK_N": 512}, {"BLOCK_N": 64}],
)

BUG_CLASS = "cancellation"
