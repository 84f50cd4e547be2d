import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "int32-overflow"

SCALE = 0.0625


@triton.jit
def fake_quant_kernel(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    q = tl.floor(x / scale + 0.5)
    q = tl.minimum(tl.maximum(q, -128.0, propagate_nan=tl.PropagateNan.ALL), 127.0,
                   propagate_nan=tl.PropagateNan.ALL)
    tl.store(out_ptr + offs, (q * scale).to(out_ptr.dtype.element_ty), mask=mask)


def fake_quant(x, BLOCK=1024):
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n:
        fake_quant_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, SCALE, BLOCK=BLOCK)
    return out


def reference(x):
    return torch.clamp(torch.floor(x / SCALE + 0.5), -128.0, 127.0) * SCALE


spec = kcheck.Spec(
    name="hx12_fake_quant_int8",
    kernel=fake_quant,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=512)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)
