"""Chi-square distance between histograms (texture / colour descriptors), one pair of histograms per row:

    d = 1/2 * sum over bins with a + b > 0 of (a - b)^2 / (a + b)

Bins empty in both histograms contribute nothing. One program per row, the bins walked in BLOCK_N chunks, fp32
sums."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "division-by-zero"


@triton.jit
def chi2_kernel(a_ptr, b_ptr, out_ptr, N, stride_am, stride_an, stride_bm, stride_bn, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = cols < N
        a = tl.load(a_ptr + row * stride_am + cols * stride_an, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + row * stride_bm + cols * stride_bn, mask=mask, other=0.0).to(tl.float32)
        d = a - b
        s = a + b
        acc += d * d / s
    tl.store(out_ptr + row, (0.5 * tl.sum(acc, axis=0)).to(out_ptr.dtype.element_ty))


def chi_square_distance(a: torch.Tensor, b: torch.Tensor, BLOCK_N: int = 256) -> torch.Tensor:
    M, N = a.shape
    out = torch.empty((M,), dtype=a.dtype, device=a.device)
    if M == 0:
        return out
    chi2_kernel[(M,)](a, b, out, N, a.stride(0), a.stride(1), b.stride(0), b.stride(1), BLOCK_N=BLOCK_N)
    return out


def reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    s = a + b
    safe = torch.where(s > 0, s, torch.ones_like(s))
    return 0.5 * torch.where(s > 0, (a - b) ** 2 / safe, torch.zeros_like(s)).sum(-1)


def histogram(ctx: kcheck.CaseContext) -> torch.Tensor:
    """Sparse non-negative histograms: about 30% of the bins empty."""
    M, N = ctx.dims["M"], ctx.dims["N"]
    counts = ctx.rand(M, N, dtype=torch.float32) * 10.0
    return torch.where(ctx.rand(M, N, dtype=torch.float32) < 0.3, 0.0, counts).to(ctx.dtype)


spec = kcheck.Spec(
    name="hx30_chi_square_distance",
    kernel=chi_square_distance,
    reference=reference,
    inputs=[kcheck.Custom(histogram, name="a", dims=("M", "N")), kcheck.Custom(histogram, name="b", dims=("M", "N"))],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=512)},
    reduce=["N"],
    configs=[{"BLOCK_N": 256}, {"BLOCK_N": 64}],
)
