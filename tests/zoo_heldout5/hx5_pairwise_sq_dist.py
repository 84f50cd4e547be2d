"""Pairwise squared Euclidean distances between two point sets (k-means assignment, kNN, RBF kernels):
out[i, j] = |a_i - b_j|^2 for a of shape [M, D] and b of shape [N, D].

Tiled like a GEMM: each program owns a BLOCK_M x BLOCK_N output tile and walks D in BLOCK_D steps, the cross term
a_i . b_j on tl.dot (fp32 products, IEEE precision for fp32 inputs) and the squared norms of its rows and columns
alongside, all accumulated in fp32; the distance is assembled from the three and clamped at 0. Output in the
input dtype; int64 offsets; any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def sq_dist_kernel(a_ptr, b_ptr, out_ptr, M, N, D, stride_am, stride_ad, stride_bn, stride_bd, stride_om, stride_on,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr, IEEE: tl.constexpr):
    rm = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    rn = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    rd = tl.arange(0, BLOCK_D).to(tl.int64)
    cross = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    na = tl.zeros([BLOCK_M], dtype=tl.float32)
    nb = tl.zeros([BLOCK_N], dtype=tl.float32)
    for d0 in range(0, D, BLOCK_D):
        dd = d0 + rd
        a = tl.load(a_ptr + rm[:, None] * stride_am + dd[None, :] * stride_ad,
                    mask=(rm[:, None] < M) & (dd[None, :] < D), other=0.0)
        bt = tl.load(b_ptr + rn[None, :] * stride_bn + dd[:, None] * stride_bd,
                     mask=(rn[None, :] < N) & (dd[:, None] < D), other=0.0)
        if IEEE:
            cross = tl.dot(a, bt, cross, input_precision="ieee")
        else:
            cross = tl.dot(a, bt, cross)
        af = a.to(tl.float32)
        bf = bt.to(tl.float32)
        na += tl.sum(af * af, axis=1)
        nb += tl.sum(bf * bf, axis=0)
    dist = na[:, None] + nb[None, :] - 2.0 * cross
    dist = tl.where(dist < 0.0, 0.0, dist)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(out_ptr + rm[:, None] * stride_om + rn[None, :] * stride_on, dist.to(out_ptr.dtype.element_ty),
             mask=mask)


def sq_dist(a: torch.Tensor, b: torch.Tensor, BLOCK_M: int = 32, BLOCK_N: int = 32,
            BLOCK_D: int = 32) -> torch.Tensor:
    M, D = a.shape
    N = b.shape[0]
    out = torch.empty((M, N), dtype=a.dtype, device=a.device)
    if M == 0 or N == 0:
        return out
    if D == 0:
        return out.zero_()
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    sq_dist_kernel[grid](a, b, out, M, N, D, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                         out.stride(0), out.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_D=BLOCK_D,
                         IEEE=a.dtype == torch.float32)
    return out


def reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return (a[:, None, :] - b[None, :, :]).pow(2).sum(-1)


spec = kcheck.Spec(
    name="hx5_pairwise_sq_dist",
    kernel=sq_dist,
    reference=reference,
    inputs=[kcheck.Tensor("M", "D", name="a"), kcheck.Tensor("N", "D", name="b")],
    # grid axis 1 holds the column tiles (at most 65535): N stays out of the past-2**31 case
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=128, large=False), "D": kcheck.Dim(nominal=64)},
    reduce=["D"],
    configs=[{"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_D": 32}, {"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_D": 16}],
)

BUG_CLASS = "cancellation"
