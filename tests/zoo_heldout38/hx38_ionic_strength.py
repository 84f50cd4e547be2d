"""Ionic strength of electrolyte solutions (chemistry): for M samples over S dissolved species with molar
concentrations c[m, s] and charge numbers z[s],

    I[m] = 0.5 * sum_s c[m, s] * z[s]^2

A row reduction: each program takes BLOCK_M samples and walks the species in BLOCK_S-wide chunks, accumulating in
fp32; the result is returned in the input dtype. Row offsets are int64; any strides are accepted.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "edge-guard"


@triton.jit
def ionic_strength_kernel(c_ptr, z_ptr, out_ptr, M, S, stride_cm, stride_cs, stride_z,
                          BLOCK_M: tl.constexpr, BLOCK_S: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    c_rows = c_ptr + rows[:, None] * stride_cm
    acc = tl.zeros([BLOCK_M, BLOCK_S], dtype=tl.float32)
    for start in range(0, S, BLOCK_S):
        cols = start + tl.arange(0, BLOCK_S).to(tl.int64)
        col_mask = cols < S
        z = tl.load(z_ptr + cols * stride_z).to(tl.float32)
        c = tl.load(c_rows + cols[None, :] * stride_cs, mask=row_mask[:, None] & col_mask[None, :],
                    other=0.0).to(tl.float32)
        acc += c * (z * z)[None, :]
    total = 0.5 * tl.sum(acc, axis=1)
    tl.store(out_ptr + rows, total.to(out_ptr.dtype.element_ty), mask=row_mask)


def ionic_strength(c: torch.Tensor, z: torch.Tensor, BLOCK_S: int = 128, TILE: int = 4096) -> torch.Tensor:
    M, S = c.shape
    out = torch.empty((M,), dtype=c.dtype, device=c.device)
    if M == 0:
        return out
    if S == 0:
        return out.zero_()
    block_s = min(BLOCK_S, triton.next_power_of_2(S))
    block_m = max(1, min(TILE // block_s, triton.next_power_of_2(M)))
    ionic_strength_kernel[(triton.cdiv(M, block_m),)](c, z, out, M, S, c.stride(0), c.stride(1), z.stride(0),
                                                      BLOCK_M=block_m, BLOCK_S=block_s)
    return out


def reference(c: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
    return 0.5 * (c * (z * z)).sum(-1)


spec = kcheck.Spec(
    name="hx38_ionic_strength",
    kernel=ionic_strength,
    reference=reference,
    inputs=[kcheck.Tensor("M", "S", name="concentration"), kcheck.Tensor("S", name="charge")],
    dims={"M": kcheck.Dim(nominal=256), "S": kcheck.Dim(nominal=48)},
    reduce=["S"],
    configs=[{"BLOCK_S": 128}, {"BLOCK_S": 32}],
    properties=[kcheck.props.linear(0)],
)
