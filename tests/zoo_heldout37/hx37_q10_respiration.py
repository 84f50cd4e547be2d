"""Temperature-scaled ecosystem respiration with the Q10 model (agronomy / soil ecology):

    R = R_ref * Q10 ** ((T - T_ref) / 10)

over [sites, days, hours] grids of reference respiration R_ref and temperature T (degrees C), with T_ref = 10 C and
Q10 a mode. Elementwise on the flattened tensors (made contiguous), computed as R_ref * exp2((T - T_ref) * log2(Q10)
/ 10) in fp32; the flat offsets are int64, since sites x days x hours may pass 2**31 elements.
"""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "int32-overflow"

T_REF = 10.0


@triton.jit
def q10_kernel(r_ptr, t_ptr, out_ptr, n, t_ref, log2_q10_over_10, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    r = tl.load(r_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    t = tl.load(t_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    out = r * tl.exp2((t - t_ref) * log2_q10_over_10)
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


def q10_respiration(r_ref: torch.Tensor, temp: torch.Tensor, q10: float = 2.0, BLOCK: int = 1024) -> torch.Tensor:
    r_ref, temp = r_ref.contiguous(), temp.contiguous()
    out = torch.empty(r_ref.shape, dtype=r_ref.dtype, device=r_ref.device)
    n = r_ref.numel()
    if n:
        q10_kernel[(triton.cdiv(n, BLOCK),)](r_ref, temp, out, n, T_REF, math.log2(q10) / 10.0, BLOCK=BLOCK)
    return out


def reference(r_ref: torch.Tensor, temp: torch.Tensor, q10: float) -> torch.Tensor:
    return r_ref * torch.pow(torch.as_tensor(q10, dtype=temp.dtype), (temp - T_REF) / 10.0)


spec = kcheck.Spec(
    name="hx37_q10_respiration",
    kernel=q10_respiration,
    reference=reference,
    inputs=[kcheck.Tensor("S", "D", "H", name="r_ref"), kcheck.Tensor("S", "D", "H", name="temperature")],
    dims={"S": kcheck.Dim(nominal=12), "D": kcheck.Dim(nominal=30), "H": kcheck.Dim(nominal=24)},
    params={"q10": [2.0, 2.6]},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)
