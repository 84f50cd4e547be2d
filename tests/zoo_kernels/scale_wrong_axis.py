"""Bug class: wrong axis (a per-column scale indexed with the row count).

y[m, n] = x[m, n] * scale[n]: a per-channel scale over the last dimension, computed over the flattened tensor, where
the channel of flat element i is i % N. The kernel takes i % M. When M == N (the 256 x 256 a casual test tries, or
any square activation) the two agree and every element is right. Otherwise element i gets scale[i % M], the wrong
channel's scale wherever i % M != i % N (half the tensor at 128 x 256, nearly all of it at 17 x 256); with M > N
the index also runs past the end of ``scale``, which kcheck's interpreter reports as an out-of-bounds read.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def scale_cols_kernel(x_ptr, s_ptr, out_ptr, numel, M, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < numel
    x = tl.load(x_ptr + offs, mask=mask)
    s = tl.load(s_ptr + offs % M, mask=mask)  # BUG: the channel of a flat index is offs % N, not offs % M
    tl.store(out_ptr + offs, x * s, mask=mask)


def scale_cols(x: torch.Tensor, scale: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    M, N = x.shape
    x, scale = x.contiguous(), scale.contiguous()
    out = torch.empty_like(x)
    numel = x.numel()
    if numel:
        scale_cols_kernel[(triton.cdiv(numel, BLOCK),)](x, scale, out, numel, M, N, BLOCK=BLOCK)
    return out


spec = kcheck.Spec(
    name="scale_wrong_axis",
    kernel=scale_cols,
    reference=lambda x, scale: x * scale,
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("N")],
    dims={"M": kcheck.Dim(nominal=256), "N": kcheck.Dim(nominal=256)},
    dtypes=["fp32"],
)

BUG_CLASS = "wrong-axis"
