"""Batched affine transform of 3-D point clouds: y[b, p, :] = A[b] @ x[b, p, :] + t[b], i.e.
y[b, p, i] = sum_j A[b, i, j] * x[b, p, j] + t[b, i].

x is [B, P, 3], A is [B, 3, 3], t is [B, 3], all with any strides. Each program transforms BLOCK_P points of one
cloud: the nine matrix entries and the translation are loaded once as scalars, the coordinates as three vectors;
fp32 math, int64 offsets."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "index-transposition"


@triton.jit
def _entry(a_b, i, j, sai, saj):
    """A[b, i, j] as fp32, given A[b]'s base pointer and its row and column strides."""
    return tl.load(a_b + i * saj + j * sai).to(tl.float32)


@triton.jit
def affine_points_kernel(x_ptr, a_ptr, t_ptr, y_ptr, P, n_pblocks, sxb, sxp, sxc, sab, sai, saj, stb, stc,
                         syb, syp, syc, BLOCK_P: tl.constexpr):
    pid = tl.program_id(0)
    b = (pid // n_pblocks).to(tl.int64)
    p = (pid % n_pblocks).to(tl.int64) * BLOCK_P + tl.arange(0, BLOCK_P).to(tl.int64)
    mask = p < P
    x_b = x_ptr + b * sxb + p * sxp
    x0 = tl.load(x_b, mask=mask, other=0.0).to(tl.float32)
    x1 = tl.load(x_b + sxc, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(x_b + 2 * sxc, mask=mask, other=0.0).to(tl.float32)
    a_b = a_ptr + b * sab
    t_b = t_ptr + b * stb
    y_b = y_ptr + b * syb + p * syp
    for i in tl.static_range(3):
        yi = (_entry(a_b, i, 0, sai, saj) * x0 + _entry(a_b, i, 1, sai, saj) * x1
              + _entry(a_b, i, 2, sai, saj) * x2 + tl.load(t_b + i * stc).to(tl.float32))
        tl.store(y_b + i * syc, yi.to(y_ptr.dtype.element_ty), mask=mask)


def affine_points(x: torch.Tensor, a: torch.Tensor, t: torch.Tensor, BLOCK_P: int = 256) -> torch.Tensor:
    B, P, _ = x.shape
    y = torch.empty((B, P, 3), dtype=x.dtype, device=x.device)
    if B * P == 0:
        return y
    n_pblocks = triton.cdiv(P, BLOCK_P)
    affine_points_kernel[(B * n_pblocks,)](x, a, t, y, P, n_pblocks, *x.stride(), *a.stride(), *t.stride(),
                                           *y.stride(), BLOCK_P=BLOCK_P)
    return y


def reference(x: torch.Tensor, a: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    return x @ a.transpose(-1, -2) + t[:, None, :]


spec = kcheck.Spec(
    name="hx19_affine_transform_points",
    kernel=affine_points,
    reference=reference,
    inputs=[kcheck.Tensor("B", "P", 3, name="points"), kcheck.Tensor("B", 3, 3, name="matrix"),
            kcheck.Tensor("B", 3, name="translation")],
    dims={"B": kcheck.Dim(nominal=5, max=64), "P": kcheck.Dim(nominal=1000)},
    configs=[{"BLOCK_P": 256}, {"BLOCK_P": 64}],
)
