"""Per-feature RMS scaling over a batch (the scale step of a batch-statistics normaliser without centering):
y[m, n] = x[m, n] / sqrt(mean_m x[m, n]^2 + eps). One program per BLOCK-wide column strip: a first pass over the
rows in BLOCK-row chunks accumulates the squares per column in fp32, a second pass writes the scaled values. Square
[BLOCK, BLOCK] tiles, int64 offsets, strides honoured."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-axis"
EPS = 1e-5


@triton.jit
def feature_rms_kernel(x_ptr, out_ptr, M, N, eps, s_xm, s_xn, s_om, s_on, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    cols = pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    col_mask = cols < N
    acc = tl.zeros([BLOCK, BLOCK], dtype=tl.float32)
    for start in range(0, M, BLOCK):
        rows = start + tl.arange(0, BLOCK).to(tl.int64)
        mask = (rows < M)[:, None] & col_mask[None, :]
        x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
        acc += x * x
    ms = tl.sum(acc, axis=1) / M
    inv = 1.0 / tl.sqrt(ms + eps)
    for start in range(0, M, BLOCK):
        rows = start + tl.arange(0, BLOCK).to(tl.int64)
        mask = (rows < M)[:, None] & col_mask[None, :]
        x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
        tl.store(out_ptr + rows[:, None] * s_om + cols[None, :] * s_on, (x * inv[None, :]).to(out_ptr.dtype.element_ty),
                 mask=mask)


def feature_rms_scale(x: torch.Tensor, BLOCK: int = 32) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    feature_rms_kernel[(triton.cdiv(N, BLOCK),)](x, out, M, N, EPS, x.stride(0), x.stride(1), out.stride(0),
                                                out.stride(1), BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return x * torch.rsqrt(x.pow(2).mean(0, keepdim=True) + EPS)


spec = kcheck.Spec(
    name="hx31_feature_rms_scale",
    kernel=feature_rms_scale,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=96), "N": kcheck.Dim(nominal=160)},
    reduce=["M"],
    configs=[{"BLOCK": 32}, {"BLOCK": 16}],
)
