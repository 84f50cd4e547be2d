"""Power + L2 normalization of descriptors (Fisher vectors / VLAD, "improved Fisher kernel"): per row,

    p = sign(x) * sqrt(|x|),   y = p / max(||p||_2, eps),   eps = 1e-12   (F.normalize's clamp)

Since ||p||_2^2 = sum |x|, one program per row makes two passes over the row in BLOCK_N chunks: the sum of |x|
in fp32, then the scaled signed square roots. Output in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

EPS = 1e-12


@triton.jit
def power_norm_kernel(x_ptr, y_ptr, N, s_xm, s_xn, s_ym, s_yn, eps, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * s_xm
    y_row = y_ptr + row * s_ym
    cols = tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        c = start + cols
        acc += tl.abs(tl.load(x_row + c * s_xn, mask=c < N, other=0.0).to(tl.float32))
    norm = tl.sqrt(tl.sum(acc, axis=0))
    inv = 1.0 / tl.where(norm < eps, eps, norm)  # keeps a NaN norm NaN, as clamp_min does
    for start in range(0, N, BLOCK_N):
        c = start + cols
        x = tl.load(x_row + c * s_xn, mask=c < N, other=0.0).to(tl.float32)
        p = tl.where(x < 0, -tl.sqrt(-x), tl.sqrt(tl.abs(x)))
        tl.store(y_row + c * s_yn, (p * inv).to(y_ptr.dtype.element_ty), mask=c < N)


def power_norm(x, BLOCK_N=1024):
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return y
    power_norm_kernel[(M,)](x, y, N, x.stride(0), x.stride(1), y.stride(0), y.stride(1), EPS, BLOCK_N=BLOCK_N)
    return y


def reference(x):
    p = torch.sign(x) * torch.sqrt(torch.abs(x))
    return torch.nn.functional.normalize(p, dim=-1, eps=EPS)


BUG_CLASS = "int32-overflow"

spec = kcheck.Spec(
    name="hx18_fisher_power_norm",
    kernel=power_norm,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=512)},
    reduce=["N"],
    configs=[{"BLOCK_N": 1024}, {"BLOCK_N": 128}],
)
