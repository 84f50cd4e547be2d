"""Gaussian (RBF) kernel matrix between two point sets: K[i, j] = exp(-gamma * ||x_i - y_j||^2), x (M, D), y (N, D).
A 2-D grid of BLOCK_M x BLOCK_N output tiles; the squared distances are accumulated over D in BLOCK_D chunks in
fp32, then exponentiated and stored in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def rbf_kernel(x_ptr, y_ptr, k_ptr, M, N, D, gamma, stride_xm, stride_xd, stride_yn, stride_yd, stride_km,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    rmask = rows < M
    cmask = cols < N
    xx = tl.zeros([BLOCK_M], dtype=tl.float32)
    yy = tl.zeros([BLOCK_N], dtype=tl.float32)
    xy = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, D, BLOCK_D):
        ks = start + tl.arange(0, BLOCK_D)
        kmask = ks < D
        xa = tl.load(x_ptr + rows[:, None] * stride_xm + ks[None, :] * stride_xd,
                     mask=rmask[:, None] & kmask[None, :], other=0.0).to(tl.float32)
        yb = tl.load(y_ptr + cols[:, None] * stride_yn + ks[None, :] * stride_yd,
                     mask=cmask[:, None] & kmask[None, :], other=0.0).to(tl.float32)
        xx += tl.sum(xa * xa, axis=1)
        yy += tl.sum(yb * yb, axis=1)
        xy += tl.sum(xa[:, None, :] * yb[None, :, :], axis=2)
    d2 = xx[:, None] + yy[None, :] - 2.0 * xy
    kv = tl.exp(-gamma * d2)
    tl.store(k_ptr + rows[:, None] * stride_km + cols[None, :], kv.to(k_ptr.dtype.element_ty),
             mask=rmask[:, None] & cmask[None, :])


def rbf(x: torch.Tensor, y: torch.Tensor, gamma: float = 0.02, BLOCK_M: int = 16, BLOCK_N: int = 16,
        BLOCK_D: int = 16) -> torch.Tensor:
    M, D = x.shape
    N = y.shape[0]
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    rbf_kernel[grid](x, y, out, M, N, D, gamma, x.stride(0), x.stride(1), y.stride(0), y.stride(1), out.stride(0),
                     BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_D=BLOCK_D)
    return out


def reference(x: torch.Tensor, y: torch.Tensor, gamma: float = 0.02) -> torch.Tensor:
    return torch.exp(-gamma * ((x[:, None, :] - y[None, :, :]) ** 2).sum(-1))


spec = kcheck.Spec(
    name="hx8_rbf_kernel",
    kernel=rbf,
    reference=reference,
    inputs=[kcheck.Tensor("M", "D", name="x"), kcheck.Tensor("N", "D", name="y")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=64), "D": kcheck.Dim(nominal=32)},
    params={"gamma": [0.02, 0.5]},
    reduce=["D"],
)

BUG_CLASS = "cancellation"
