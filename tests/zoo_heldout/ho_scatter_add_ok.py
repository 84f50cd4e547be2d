"""Scatter-add of rows (the backward of an embedding lookup): out[index[t], :] += src[t, :], for src (T, D) and
index (T,) with values in [0, V); out (V, D) starts at zero. Atomic adds into an fp32 buffer, one program per
(token, BLOCK_D features), returned in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None
GPU_ONLY = False


@triton.jit
def _scatter_add_kernel(src_ptr, idx_ptr, out_ptr, D, stride_st, stride_sd, stride_ov,
                        BLOCK_D: tl.constexpr):
    t = tl.program_id(0).to(tl.int64)
    d = tl.program_id(1).to(tl.int64) * BLOCK_D + tl.arange(0, BLOCK_D)
    mask = d < D
    dst = tl.load(idx_ptr + t).to(tl.int64)
    v = tl.load(src_ptr + t * stride_st + d * stride_sd, mask=mask, other=0.0).to(tl.float32)
    tl.atomic_add(out_ptr + dst * stride_ov + d, v, mask=mask)


def scatter_add(src: torch.Tensor, index: torch.Tensor, V: int, BLOCK_D: int = 128) -> torch.Tensor:
    T, D = src.shape
    out = torch.zeros((V, D), dtype=torch.float32, device=src.device)
    if T and D:
        grid = (T, triton.cdiv(D, BLOCK_D))
        _scatter_add_kernel[grid](src, index, out, D, src.stride(0), src.stride(1), out.stride(0),
                                  BLOCK_D=BLOCK_D)
    return out.to(src.dtype)


def reference(src: torch.Tensor, index: torch.Tensor, V: int) -> torch.Tensor:
    out = torch.zeros((V, src.shape[1]), dtype=src.dtype, device=src.device)
    return out.index_add_(0, index, src)


spec = kcheck.Spec(
    name="ho_scatter_add_ok",
    kernel=scatter_add,
    reference=reference,
    inputs=[kcheck.Tensor("T", "D"), kcheck.Index("T", high="V"), kcheck.Scalar(lambda d: d["V"])],
    dims={"T": kcheck.Dim(nominal=256, real=()), "D": kcheck.Dim(nominal=64, real=(384,)),
          "V": kcheck.Dim(nominal=32, min=1, real=())},
    reduce=["T"],
    # fp32 atomic adds flush subnormal values to zero on NVIDIA GPUs: subnormal inputs are outside the contract
    patterns=["randn", "zeros", "ones", "eye", "arange", "large", "nonfinite", "constant", "large_mean"],
    configs=[{"BLOCK_D": 128}, {"BLOCK_D": 32}],
)
