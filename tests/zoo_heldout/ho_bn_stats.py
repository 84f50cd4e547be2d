"""Per-channel batch statistics for BatchNorm training: mean[c] and biased variance var[c] over the rows of
x (M, C). Programs own BLOCK_C channels and walk the rows in BLOCK_M chunks twice (mean, then the mean of squared
deviations), in fp32; both results in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "edge-guard"
GPU_ONLY = False


@triton.jit
def _bn_stats_kernel(x_ptr, mean_ptr, var_ptr, M, C, stride_m, stride_c,
                     BLOCK_M: tl.constexpr, BLOCK_C: tl.constexpr):
    c = tl.program_id(0).to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C)
    c_mask = c < C
    acc = tl.zeros([BLOCK_M, BLOCK_C], dtype=tl.float32)
    for start in range(0, M, BLOCK_M):
        rows = start + tl.arange(0, BLOCK_M).to(tl.int64)
        x = tl.load(x_ptr + rows[:, None] * stride_m + c[None, :] * stride_c, mask=c_mask[None, :], other=0.0)
        acc += x.to(tl.float32)
    mean = tl.sum(acc, axis=0) / M
    acc = tl.zeros([BLOCK_M, BLOCK_C], dtype=tl.float32)
    for start in range(0, M, BLOCK_M):
        rows = start + tl.arange(0, BLOCK_M).to(tl.int64)
        x = tl.load(x_ptr + rows[:, None] * stride_m + c[None, :] * stride_c, mask=c_mask[None, :], other=0.0)
        d = tl.where(c_mask[None, :], x.to(tl.float32) - mean[None, :], 0.0)
        acc += d * d
    var = tl.sum(acc, axis=0) / M
    tl.store(mean_ptr + c, mean.to(mean_ptr.dtype.element_ty), mask=c_mask)
    tl.store(var_ptr + c, var.to(var_ptr.dtype.element_ty), mask=c_mask)


def bn_stats(x: torch.Tensor, BLOCK_M: int = 32, BLOCK_C: int = 64) -> tuple[torch.Tensor, torch.Tensor]:
    M, C = x.shape
    mean = torch.empty(C, dtype=x.dtype, device=x.device)
    var = torch.empty(C, dtype=x.dtype, device=x.device)
    if C == 0:
        return mean, var
    if M == 0:
        return mean.fill_(float("nan")), var.fill_(float("nan"))
    _bn_stats_kernel[(triton.cdiv(C, BLOCK_C),)](x, mean, var, M, C, x.stride(0), x.stride(1),
                                                 BLOCK_M=BLOCK_M, BLOCK_C=BLOCK_C)
    return mean, var


spec = kcheck.Spec(
    name="ho_bn_stats",
    kernel=bn_stats,
    reference=lambda x: (x.mean(0), x.var(0, unbiased=False)),
    inputs=[kcheck.Tensor("M", "C")],
    dims={"M": kcheck.Dim(nominal=256, real=(2880,)), "C": kcheck.Dim(nominal=64, real=(37,))},
    reduce=["M"],
    configs=[{"BLOCK_M": 32, "BLOCK_C": 64}, {"BLOCK_M": 64, "BLOCK_C": 32}],
)
