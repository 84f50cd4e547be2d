"""Attention head merge: (B, H, T, D) -> (B, T, H * D), out[b, t, h * D + d] = x[b, h, t, d].

A 2-D grid: program (b * T + t, h) copies one D-wide vector, read at x + b * sb + h * st + t * sh + d * sd, into the
contiguous output.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def merge_kernel(x_ptr, out_ptr, T, H, D, sb, sh, st, sd, BLOCK_D: tl.constexpr):
    bt = tl.program_id(0).to(tl.int64)
    h = tl.program_id(1).to(tl.int64)
    b = bt // T
    t = bt % T
    d = tl.arange(0, BLOCK_D).to(tl.int64)
    mask = d < D
    v = tl.load(x_ptr + b * sb + h * st + t * sh + d * sd, mask=mask)
    tl.store(out_ptr + bt * (H * D) + h * D + d, v, mask=mask)


def head_merge(x: torch.Tensor) -> torch.Tensor:
    B, H, T, D = x.shape
    out = torch.empty((B, T, H * D), dtype=x.dtype, device=x.device)
    if out.numel() == 0:
        return out
    merge_kernel[(B * T, H)](x, out, T, H, D, *x.stride(), BLOCK_D=triton.next_power_of_2(D))
    return out


spec = kcheck.Spec(
    name="hx10_head_merge",
    kernel=head_merge,
    reference=lambda x: x.transpose(1, 2).reshape(x.shape[0], x.shape[2], x.shape[1] * x.shape[3]),
    inputs=[kcheck.Tensor("B", "H", "T", "D")],
    dims={"B": kcheck.Dim(nominal=2), "H": kcheck.Dim(nominal=4), "T": kcheck.Dim(nominal=64),
          "D": kcheck.Dim(nominal=64)},
)

BUG_CLASS = "index-transposition"
