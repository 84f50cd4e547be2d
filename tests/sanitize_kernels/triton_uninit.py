"""Planted bug (initcheck): a Triton scale kernel that reads its per-block scale from a scratch buffer the launcher
allocated with torch.empty and never filled (the line that should fill it is missing)."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def scale_kernel(x_ptr, s_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    s = tl.load(s_ptr + pid)  # reads memory nothing wrote
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * s, mask=mask)


def scale(x: torch.Tensor, BLOCK: int = 128) -> torch.Tensor:
    out = torch.empty_like(x)
    grid = triton.cdiv(x.numel(), BLOCK)
    scales = torch.empty(max(grid, 1), device=x.device, dtype=torch.float32)  # BUG: never filled with 2.0
    if x.numel():
        scale_kernel[(grid,)](x, scales, out, x.numel(), BLOCK=BLOCK)
    return out


spec = kcheck.Spec(name="triton_uninit", kernel=scale, reference=lambda x: 2 * x, inputs=[kcheck.Tensor("N")],
                   dims={"N": kcheck.Dim(nominal=1024)}, dtypes=["fp32"])
