"""Fixed-range histogram: counts of x in NBINS equal bins over [LO, HI); values outside (and NaN) are dropped.

Each program bins one block of the flattened input with a one-hot sum and adds its counts to the global histogram
with atomics (integer-valued fp32 counts, exact below 2**24, so the order of the atomics does not matter).
"""

import torch
import triton
import triton.language as tl

import kcheck

LO, HI, NBINS = -4.0, 4.0, 32
INV_WIDTH = NBINS / (HI - LO)  # 4.0: a power of two, so binning is exact in fp32


@triton.jit
def histogram_kernel(x_ptr, hist_ptr, n, lo, hi, inv_width, NBINS: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    x = tl.load(x_ptr + offs, mask=offs < n, other=float("nan")).to(tl.float32)
    keep = (x >= lo) & (x < hi)
    b = tl.floor((tl.where(keep, x, lo) - lo) * inv_width).to(tl.int32)
    b = tl.minimum(b, NBINS - 1)
    onehot = (b[:, None] == tl.arange(0, NBINS)[None, :]) & keep[:, None]
    counts = tl.sum(onehot.to(tl.float32), axis=0)
    tl.atomic_add(hist_ptr + tl.arange(0, NBINS), counts)


def histogram(x, BLOCK=512):
    x = x.contiguous().view(-1)
    hist = torch.zeros(NBINS, dtype=torch.float32, device=x.device)
    if x.numel():
        histogram_kernel[(triton.cdiv(x.numel(), BLOCK),)](x, hist, x.numel(), LO, HI, INV_WIDTH,
                                                          NBINS=NBINS, BLOCK=BLOCK)
    return hist


def reference(x):
    x = x.reshape(-1).float()  # the bins are defined on the stored value, in fp32 like the kernel
    keep = (x >= LO) & (x < HI)
    b = ((x[keep] - LO) * INV_WIDTH).floor().long().clamp(max=NBINS - 1)
    return torch.bincount(b, minlength=NBINS).to(torch.float64)


spec = kcheck.Spec(
    name="hx2_histogram_ok",
    kernel=histogram,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=32, real=()), "N": kcheck.Dim(nominal=256)},
    configs=[{"BLOCK": 512}, {"BLOCK": 128}],
    output_dtypes=[torch.float32],
)

BUG_CLASS = None
