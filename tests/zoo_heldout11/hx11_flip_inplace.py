"""In-place reversal of every row along the sequence axis (x[m, :] = x[m, ::-1], e.g. for the backward direction
of a bidirectional scan), without a temporary.

Programs cover the row in BLOCK-wide chunks; each lane i swaps x[i] with x[N - 1 - i], and only the lanes of the
first half swap, so every pair is swapped once by one program. 2-D grid (row blocks of the flattened rows on x).

Planted bug (race): the swap mask is lo != hi (meant to skip the middle element) instead of lo < hi, so every pair
is swapped twice, once by each of the two programs that cover its ends, each reading what the other writes.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def flip_kernel(x_ptr, N, sxm, sxn, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    lo = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    hi = N - 1 - lo
    mask = (lo < N) & (lo != hi)
    base = x_ptr + row * sxm
    a = tl.load(base + lo * sxn, mask=mask)
    b = tl.load(base + hi * sxn, mask=mask)
    tl.store(base + lo * sxn, b, mask=mask)
    tl.store(base + hi * sxn, a, mask=mask)


def flip_inplace(x, BLOCK=256):
    M, N = x.shape
    if M and N:
        flip_kernel[(M, triton.cdiv(N, BLOCK))](x, N, x.stride(0), x.stride(1), BLOCK=BLOCK)
    return x


spec = kcheck.Spec(
    name="hx11_flip_inplace",
    kernel=flip_inplace,
    reference=lambda x: torch.flip(x, dims=[-1]),
    inputs=[kcheck.Tensor("M", "N", mutated=True)],
    dims={"M": kcheck.Dim(nominal=48), "N": kcheck.Dim(nominal=1000, large=False)},
    configs=[{"BLOCK": 256}, {"BLOCK": 64}],
)

BUG_CLASS = "race"  # swap mask lo != hi: each pair swapped by two programs
