"""Octahedral shear stress from the principal stresses (materials, yield criteria):

    tau_oct = (1/3) * sqrt((s1 - s2)^2 + (s2 - s3)^2 + (s3 - s1)^2)

for M material points, s an [M, 3] tensor of any strides. BLOCK_M points per program, the three components
loaded as three strided vectors. fp32 math.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "no-op"


@triton.jit
def octahedral_kernel(s_ptr, t_ptr, M, s_sm, s_sk, BLOCK_M: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    s1 = tl.load(s_ptr + rows * s_sm, mask=row_mask, other=0.0).to(tl.float32)
    s2 = tl.load(s_ptr + rows * s_sm + s_sk, mask=row_mask, other=0.0).to(tl.float32)
    s3 = tl.load(s_ptr + rows * s_sm + 2 * s_sk, mask=row_mask, other=0.0).to(tl.float32)
    d12 = s1 - s2
    d23 = s2 - s3
    d31 = s3 - s1
    tau = tl.sqrt(d12 * d12 + d23 * d23 + d31 * d31) / 3.0


def octahedral_shear_stress(s, BLOCK_M=128):
    M = s.shape[0]
    tau = torch.empty((M,), dtype=s.dtype, device=s.device)
    if M:
        octahedral_kernel[(triton.cdiv(M, BLOCK_M),)](s, tau, M, s.stride(0), s.stride(1), BLOCK_M=BLOCK_M)
    return tau


def reference(s):
    s1, s2, s3 = s[:, 0], s[:, 1], s[:, 2]
    return torch.sqrt((s1 - s2) ** 2 + (s2 - s3) ** 2 + (s3 - s1) ** 2) / 3.0


spec = kcheck.Spec(
    name="octahedral_shear_stress",
    kernel=octahedral_shear_stress,
    reference=reference,
    inputs=[kcheck.Tensor("M", 3, name="principal_stress")],
    dims={"M": kcheck.Dim(nominal=2000)},
    configs=[{"BLOCK_M": 128}, {"BLOCK_M": 32}],
)
