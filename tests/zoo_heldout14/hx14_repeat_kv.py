"""repeat_kv for grouped-query attention (Llama, Mistral): expand the key/value heads so that every query head has
its own copy, out[b, h * n_rep + r, s, d] = kv[b, h, s, d].

kv is [B, Hkv, S, D] (any strides: it is often a slice of a fused qkv projection); the output is a fresh
contiguous [B, Hkv * n_rep, S, D]. A flat 1-D grid walks the output in BLOCK-element pieces, each lane decomposing
its flat index into (b, head, s, d).
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "int32-overflow"


@triton.jit
def repeat_kv_kernel(kv_ptr, out_ptr, total, HQ, S, D, n_rep, stride_b, stride_h, stride_s, stride_d,
                     BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    d = offs % D
    s = (offs // D) % S
    hq = (offs // (D * S)) % HQ
    b = offs // (D * S * HQ)
    src = kv_ptr + b * stride_b + (hq // n_rep) * stride_h + s * stride_s + d * stride_d
    v = tl.load(src, mask=mask)
    tl.store(out_ptr + offs, v, mask=mask)


def repeat_kv(kv: torch.Tensor, n_rep: int = 4, BLOCK: int = 1024) -> torch.Tensor:
    B, H, S, D = kv.shape
    out = torch.empty((B, H * n_rep, S, D), dtype=kv.dtype, device=kv.device)
    total = out.numel()
    if total == 0:
        return out
    repeat_kv_kernel[(triton.cdiv(total, BLOCK),)](kv, out, total, H * n_rep, S, D, n_rep, *kv.stride(), BLOCK=BLOCK)
    return out


def reference(kv: torch.Tensor, n_rep: int = 4) -> torch.Tensor:
    return torch.repeat_interleave(kv, n_rep, dim=1)


spec = kcheck.Spec(
    name="hx14_repeat_kv",
    kernel=repeat_kv,
    reference=reference,
    inputs=[kcheck.Tensor("B", "H", "S", "D", name="kv")],
    dims={"B": kcheck.Dim(nominal=2), "H": kcheck.Dim(nominal=4), "S": kcheck.Dim(nominal=64),
          "D": kcheck.Dim(nominal=64)},
    params={"n_rep": [4, 1]},
    configs=[{"BLOCK": 1024}, {"BLOCK": 512}],
)
