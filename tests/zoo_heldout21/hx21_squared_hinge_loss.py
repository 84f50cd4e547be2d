"""Elementwise squared hinge loss for labels in {-1, +1}: max(0, 1 - y * s)^2, 2-D tiles, any strides, fp32."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def sq_hinge_kernel(s_ptr, y_ptr, out_ptr, M, N, ssm, ssn, sym, syn, som, son,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    s = tl.load(s_ptr + rows[:, None] * N + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + rows[:, None] * sym + cols[None, :] * syn, mask=mask, other=0.0).to(tl.float32)
    h = 1.0 - y * s
    h = tl.where(h > 0.0, h, tl.where(h != h, h, 0.0))
    tl.store(out_ptr + rows[:, None] * som + cols[None, :] * son, (h * h).to(out_ptr.dtype.element_ty), mask=mask)


def squared_hinge(scores: torch.Tensor, labels: torch.Tensor, BLOCK_M: int = 16, BLOCK_N: int = 64) -> torch.Tensor:
    M, N = scores.shape
    out = torch.empty((M, N), dtype=scores.dtype, device=scores.device)
    if M and N:
        grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
        sq_hinge_kernel[grid](scores, labels, out, M, N, scores.stride(0), scores.stride(1), labels.stride(0),
                              labels.stride(1), out.stride(0), out.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def labels(ctx):
    m, n = ctx.dims["M"], ctx.dims["N"]
    y = ctx.randint(0, 2, (m, n)) * 2 - 1
    return y.to(ctx.dtype)


def reference(scores: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    return torch.clamp(1.0 - labels * scores, min=0.0) ** 2


spec = kcheck.Spec(
    name="hx21_squared_hinge_loss",
    kernel=squared_hinge,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="scores"), kcheck.Custom(labels, name="labels", dims=("M", "N"))],
    dims={"M": kcheck.Dim(nominal=48, max=64, real=()), "N": kcheck.Dim(nominal=256, max=2048)},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 64}, {"BLOCK_M": 8, "BLOCK_N": 32}],
)
BUG_CLASS = "stride-assumption"
