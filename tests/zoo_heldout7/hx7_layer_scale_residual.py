"""LayerScale residual add (CaiT / ConvNeXt blocks): out = residual + gamma * branch, with gamma a learned
per-channel vector over the last dimension. One program per BLOCK_M x BLOCK_N tile of the (tokens, channels)
matrix; gamma is loaded once per tile and broadcast over the rows. Inputs may have padded rows (their own row
strides); the output is contiguous."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def layer_scale_residual_kernel(res_ptr, br_ptr, gamma_ptr, out_ptr, M, N,
                                stride_rm, stride_bm, stride_om,
                                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows < M)[:, None]
    gamma = tl.load(gamma_ptr + cols).to(tl.float32)
    res = tl.load(res_ptr + rows[:, None] * stride_rm + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    br = tl.load(br_ptr + rows[:, None] * stride_bm + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    out = res + gamma[None, :] * br
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :], out.to(out_ptr.dtype.element_ty), mask=mask)


def layer_scale_residual(residual, branch, gamma, BLOCK_M=16, BLOCK_N=64):
    M, N = residual.shape
    out = torch.empty((M, N), dtype=residual.dtype, device=residual.device)
    if M == 0 or N == 0:
        return out
    if residual.stride(1) != 1:
        residual = residual.contiguous()
    if branch.stride(1) != 1:
        branch = branch.contiguous()
    gamma = gamma.contiguous()
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    layer_scale_residual_kernel[grid](residual, branch, gamma, out, M, N,
                                      residual.stride(0), branch.stride(0), out.stride(0),
                                      BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(residual, branch, gamma):
    return residual + gamma * branch


spec = kcheck.Spec(
    name="hx7_layer_scale_residual",
    kernel=layer_scale_residual,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="residual"), kcheck.Tensor("M", "N", name="branch"),
            kcheck.Tensor("N", name="gamma")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=256)},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 64}, {"BLOCK_M": 32, "BLOCK_N": 128}],
)

BUG_CLASS = "edge-guard"
