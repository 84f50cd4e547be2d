"""Per-sample gradient clipping (DP-SGD): out[m] = g[m] * min(1, max_norm / (||g[m]||_2 + 1e-6)).

One program per row; the launcher sets the tile width BLOCK_N = N and loads the row in one tile; the norm is
taken in fp32, the result returned in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def clip_kernel(g_ptr, out_ptr, N, sgm, sgn, som, son, max_norm, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    mask = cols < N
    g = tl.load(g_ptr + row * sgm + cols * sgn, mask=mask, other=0.0).to(tl.float32)
    norm = tl.sqrt(tl.sum(g * g, axis=0))
    factor = tl.minimum(max_norm / (norm + 1e-6), 1.0)
    tl.store(out_ptr + row * som + cols * son, (g * factor).to(out_ptr.dtype.element_ty), mask=mask)


def dp_clip(g: torch.Tensor, max_norm: float = 1.0) -> torch.Tensor:
    M, N = g.shape
    out = torch.empty((M, N), dtype=g.dtype, device=g.device)
    if M and N:
        clip_kernel[(M,)](g, out, N, g.stride(0), g.stride(1), out.stride(0), out.stride(1), max_norm,
                          BLOCK_N=N)
    return out


def reference(g: torch.Tensor, max_norm: float = 1.0) -> torch.Tensor:
    n = g.norm(dim=-1, keepdim=True)
    return g * torch.clamp(max_norm / (n + 1e-6), max=1.0)


spec = kcheck.Spec(
    name="hx10_dp_clip_rows",
    kernel=dp_clip,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1024)},
    params={"max_norm": [1.0, 50.0]},
    reduce=["N"],
)

BUG_CLASS = "kernel-raises"
