"""Reverse each sequence within its length, padding left in place (tf.reverse_sequence; the backward direction of
a bidirectional RNN over a padded batch): y[b, t] = x[b, len_b - 1 - t] for t < len_b, else x[b, t]. One program
per sequence walks the time axis in BLOCK_T chunks; int64 offsets, any strides."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "kernel-raises"


@triton.jit
def reverse_padded_kernel(x_ptr, len_ptr, y_ptr, T, sxb, sxt, syb, syt, BLOCK_T: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    n = tl.load(len_ptr + b).to(tl.int64)
    for t0 in range(0, T, BLOCK_T):
        t = t0 + tl.arange(0, BLOCK_T).to(tl.int64)
        mask = t < T
        src = tl.where(t < n, n - 1 - t, t)
        v = tl.load(x_ptr + b * sxb + src * sxt, mask=mask, other=0.0)
        tl.store(y_ptr + b * syb + t * syt, v, mask=mask)


def reverse_padded(x: torch.Tensor, lengths: torch.Tensor, MAX_BLOCK: int = 1024) -> torch.Tensor:
    B, T = x.shape
    y = torch.empty((B, T), dtype=x.dtype, device=x.device)
    if B == 0 or T == 0:
        return y
    block_t = min(MAX_BLOCK, triton.cdiv(T, 16) * 16)
    reverse_padded_kernel[(B,)](x, lengths, y, T, x.stride(0), x.stride(1), y.stride(0), y.stride(1),
                                BLOCK_T=block_t)
    return y


def reference(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    t = torch.arange(x.shape[1], device=x.device)[None, :]
    n = lengths[:, None]
    return x.gather(1, torch.where(t < n, n - 1 - t, t))


def lengths(ctx: kcheck.CaseContext) -> torch.Tensor:
    B, T = ctx.dims["B"], ctx.dims["T"]
    n = ctx.randint(0, T + 1, (B,))
    if B:
        n[0] = T          # a full-length sequence
    if B > 1:
        n[-1] = 0         # an empty one
    return n


spec = kcheck.Spec(
    name="hx16_reverse_padded",
    kernel=reverse_padded,
    reference=reference,
    inputs=[kcheck.Tensor("B", "T", name="x"), kcheck.Custom(lengths, name="lengths", dims=("B",))],
    dims={"B": kcheck.Dim(nominal=16), "T": kcheck.Dim(nominal=100)},
    configs=[{"MAX_BLOCK": 1024}, {"MAX_BLOCK": 64}],
)
