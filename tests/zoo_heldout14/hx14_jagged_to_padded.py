"""Jagged to padded dense (recommendation models, FBGEMM's jagged_to_padded_dense): a batch of variable-length
sequences stored back to back as ``values`` [T, D], with ``lengths`` [B] (their offsets are its running sum), is
copied into a dense [B, max_len, D] tensor. Sequences longer than max_len are truncated to their first max_len rows;
rows past a sequence's end are filled with ``padding_value``.

Grid: (B, row blocks of max_len). Each program reads its sequence's bounds once, then walks D in BLOCK_D chunks.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "off-by-one-mask"


@triton.jit
def jagged_to_padded_kernel(values_ptr, offsets_ptr, out_ptr, L, D, stride_vt, stride_vd, padding_value,
                            BLOCK_L: tl.constexpr, BLOCK_D: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    rows = tl.program_id(1) * BLOCK_L + tl.arange(0, BLOCK_L)
    start = tl.load(offsets_ptr + b)
    length = tl.load(offsets_ptr + b + 1) - start
    in_out = rows < L
    in_seq = in_out & (rows <= length)
    src = values_ptr + (start + rows.to(tl.int64))[:, None] * stride_vt
    dst = out_ptr + (b * L + rows.to(tl.int64))[:, None] * D
    for d0 in range(0, D, BLOCK_D):
        cols = d0 + tl.arange(0, BLOCK_D)
        in_d = (cols < D)[None, :]
        v = tl.load(src + cols[None, :] * stride_vd, mask=in_seq[:, None] & in_d, other=padding_value)
        tl.store(dst + cols[None, :], v, mask=in_out[:, None] & in_d)


def jagged_to_padded(values: torch.Tensor, lengths: torch.Tensor, max_len: int = 48, padding_value: float = 0.0,
                     BLOCK_L: int = 64, BLOCK_D: int = 64) -> torch.Tensor:
    B = lengths.numel()
    D = values.shape[1]
    out = torch.empty((B, max_len, D), dtype=values.dtype, device=values.device)
    if B == 0 or D == 0:
        return out
    offsets = torch.zeros(B + 1, dtype=torch.int64, device=values.device)
    torch.cumsum(lengths, 0, out=offsets[1:])
    grid = (B, triton.cdiv(max_len, BLOCK_L))
    jagged_to_padded_kernel[grid](values, offsets, out, max_len, D, values.stride(0), values.stride(1),
                                  padding_value, BLOCK_L=BLOCK_L, BLOCK_D=BLOCK_D)
    return out


def reference(values: torch.Tensor, lengths: torch.Tensor, max_len: int = 48,
              padding_value: float = 0.0) -> torch.Tensor:
    B, D = lengths.numel(), values.shape[1]
    idx = torch.arange(max_len, device=values.device)
    starts = torch.cumsum(lengths, 0) - lengths
    valid = idx[None, :] < lengths[:, None]
    src = (starts[:, None] + idx[None, :]).clamp(max=max(values.shape[0] - 1, 0))
    out = torch.full((B, max_len, D), padding_value, dtype=values.dtype, device=values.device)
    if values.shape[0]:
        out[valid] = values[src[valid]]
    return out


def _lengths(ctx: kcheck.CaseContext) -> torch.Tensor:
    """B sequence lengths that add up to T: random cut points in [0, T], so some sequences are empty and some are
    longer than max_len."""
    B, T = ctx.dims["B"], ctx.dims["T"]
    if B == 0:
        return torch.zeros(0, dtype=torch.int64, device=ctx.device)
    cuts = torch.sort(torch.randint(0, T + 1, (B - 1,), generator=ctx.generator)).values
    bounds = torch.cat([torch.zeros(1, dtype=torch.int64), cuts, torch.full((1,), T, dtype=torch.int64)])
    return bounds.diff().to(ctx.device)


spec = kcheck.Spec(
    name="hx14_jagged_to_padded",
    kernel=jagged_to_padded,
    reference=reference,
    inputs=[kcheck.Tensor("T", "D", name="values"), kcheck.Custom(_lengths, name="lengths", dims=("B",))],
    dims={"T": kcheck.Dim(nominal=512), "D": kcheck.Dim(nominal=64), "B": kcheck.Dim(nominal=16)},
    params={"max_len": [48, 100], "padding_value": [0.0, -1.0]},
    configs=[{"BLOCK_L": 64, "BLOCK_D": 64}, {"BLOCK_L": 16, "BLOCK_D": 128}],
)
