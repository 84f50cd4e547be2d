"""Surface metrology: RMS slope Rdq of sampled profiles. For each profile (row) z[0..N-1] sampled every dx,

    Rdq = sqrt( sum_{i < N-1} ((z[i+1] - z[i]) / dx)^2 / (N - 1) )

One program per profile, the row walked in BLOCK_N chunks; each lane takes the difference of its sample with the
next one; fp32 sums, int64 row offsets."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "off-by-one-mask"


@triton.jit
def rms_slope_kernel(z_ptr, out_ptr, N, stride_zm, stride_zn, inv_dx, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    z_row = z_ptr + row * stride_zm
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        dmask = cols < N
        z0 = tl.load(z_row + cols * stride_zn, mask=dmask, other=0.0).to(tl.float32)
        z1 = tl.load(z_row + (cols + 1) * stride_zn, mask=dmask, other=0.0).to(tl.float32)
        s = (z1 - z0) * inv_dx
        acc += tl.where(dmask, s * s, 0.0)
    rdq = tl.sqrt(tl.sum(acc, axis=0) / (N - 1))
    tl.store(out_ptr + row, rdq.to(out_ptr.dtype.element_ty))


def rms_slope(z: torch.Tensor, dx: float = 1.0, BLOCK_N: int = 512) -> torch.Tensor:
    M, N = z.shape
    out = torch.empty((M,), dtype=z.dtype, device=z.device)
    if M == 0:
        return out
    if N < 2:
        return out.fill_(float("nan"))  # no difference to average
    rms_slope_kernel[(M,)](z, out, N, z.stride(0), z.stride(1), 1.0 / dx, BLOCK_N=BLOCK_N)
    return out


def reference(z: torch.Tensor, dx: float = 1.0) -> torch.Tensor:
    s = torch.diff(z, dim=-1) / dx
    return s.pow(2).mean(-1).sqrt()


spec = kcheck.Spec(
    name="hx30_profile_rms_slope",
    kernel=rms_slope,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="z")],
    dims={"M": kcheck.Dim(nominal=48), "N": kcheck.Dim(nominal=1000)},
    reduce=["N"],
    configs=[{"BLOCK_N": 512}, {"BLOCK_N": 128}],
    params={"dx": [1.0, 0.25]},
)
