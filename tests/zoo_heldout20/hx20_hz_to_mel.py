"""Frequency (Hz) -> mel scale (HTK / O'Shaughnessy formula, natural-log form), elementwise on magnitudes:

    mel = 1127 * ln(1 + |f| / 700)

fp32 arithmetic; ln(1 + z) as ln(u) * z / (u - 1) with u = 1 + z below z = 1. int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def hz_to_mel_kernel(f_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    f = tl.load(f_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    z = tl.abs(f) * (1.0 / 700.0)
    u = 1.0 + z
    small = tl.where(u == 1.0, z, tl.log(u) * (z / tl.where(u == 1.0, 1.0, u - 1.0)))
    l1p = tl.where(z > 1.0, tl.log(u), small)
    tl.store(out_ptr + offs, (2595.0 * l1p).to(out_ptr.dtype.element_ty), mask=mask)


def hz_to_mel(f: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    f = f.contiguous()
    out = torch.empty_like(f)
    n = f.numel()
    if n:
        hz_to_mel_kernel[(triton.cdiv(n, BLOCK),)](f, out, n, BLOCK=BLOCK)
    return out


def reference(f: torch.Tensor) -> torch.Tensor:
    return 1127.0 * torch.log1p(f.abs() / 700.0)


spec = kcheck.Spec(
    name="hz_to_mel",
    kernel=hz_to_mel,
    reference=reference,
    inputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=4096)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

BUG_CLASS = "wrong-constant"
