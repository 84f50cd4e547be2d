"""ShuffleNet channel shuffle on channels-last activations: x (M, C) viewed as (M, G, C/G), transposed to
(M, C/G, G) and flattened, i.e. out[m, k*G + g] = x[m, g*(C/G) + k]. One program per row, BLOCK_C output channels
per step; the gather from x uses its own strides, int64 row offsets."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def channel_shuffle_kernel(x_ptr, out_ptr, C, stride_xm, stride_xc, stride_om,
                           GROUPS: tl.constexpr, BLOCK_C: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    per_group = C // GROUPS
    for start in range(0, C, BLOCK_C):
        j = start + tl.arange(0, BLOCK_C)
        mask = j <= C
        g = j % GROUPS
        k = j // GROUPS
        src = g * per_group + k
        v = tl.load(x_ptr + row * stride_xm + src.to(tl.int64) * stride_xc, mask=mask)
        tl.store(out_ptr + row * stride_om + j, v, mask=mask)


def channel_shuffle(x: torch.Tensor, groups: int = 4, BLOCK_C: int = 128) -> torch.Tensor:
    M, C = x.shape
    assert C % groups == 0, "channels must divide into the groups"
    out = torch.empty((M, C), dtype=x.dtype, device=x.device)
    if M == 0 or C == 0:
        return out
    channel_shuffle_kernel[(M,)](x, out, C, x.stride(0), x.stride(1), out.stride(0),
                                 GROUPS=groups, BLOCK_C=BLOCK_C)
    return out


def reference(x: torch.Tensor, groups: int = 4) -> torch.Tensor:
    M, C = x.shape
    return x.reshape(M, groups, C // groups).transpose(1, 2).reshape(M, C)


spec = kcheck.Spec(
    name="hx8_channel_shuffle",
    kernel=channel_shuffle,
    reference=reference,
    inputs=[kcheck.Tensor("M", "C")],
    dims={"M": kcheck.Dim(nominal=64), "C": kcheck.Dim(nominal=256, multiple_of=4)},
    params={"groups": [4, 2]},
    configs=[{"BLOCK_C": 128}, {"BLOCK_C": 32}],
)

BUG_CLASS = "off-by-one-mask"
