"""Inverse-distance-weighted (Shepard) interpolation of scattered samples, as in geostatistics and terrain
gridding: the value at query q is the weighted mean of the sample values z_s with weights 1 / (|q - x_s|^2 + eps)
(power 2). eps keeps the weight finite where a query falls on a sample: there the weighted mean is that sample's
value to within eps.

Each program takes BLOCK_Q queries and walks the samples in chunks of BLOCK_S, accumulating the weighted sum and
the sum of weights in fp32. Strides honoured, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "division-by-zero"

EPS = 1e-12


@triton.jit
def idw_kernel(q_ptr, x_ptr, z_ptr, out_ptr, Q, S, eps, stride_qn, stride_qc, stride_xn, stride_xc, stride_z,
               stride_o, BLOCK_Q: tl.constexpr, BLOCK_S: tl.constexpr):
    qs = tl.program_id(0).to(tl.int64) * BLOCK_Q + tl.arange(0, BLOCK_Q).to(tl.int64)
    q_mask = qs < Q
    qx = tl.load(q_ptr + qs * stride_qn, mask=q_mask, other=0.0).to(tl.float32)
    qy = tl.load(q_ptr + qs * stride_qn + stride_qc, mask=q_mask, other=0.0).to(tl.float32)
    wz = tl.zeros([BLOCK_Q, BLOCK_S], dtype=tl.float32)
    wsum = tl.zeros([BLOCK_Q, BLOCK_S], dtype=tl.float32)
    for start in range(0, S, BLOCK_S):
        ss = start + tl.arange(0, BLOCK_S).to(tl.int64)
        s_mask = ss < S
        sx = tl.load(x_ptr + ss * stride_xn, mask=s_mask, other=0.0).to(tl.float32)
        sy = tl.load(x_ptr + ss * stride_xn + stride_xc, mask=s_mask, other=0.0).to(tl.float32)
        z = tl.load(z_ptr + ss * stride_z, mask=s_mask, other=0.0).to(tl.float32)
        dx = qx[:, None] - sx[None, :]
        dy = qy[:, None] - sy[None, :]
        w = 1.0 / (dx * dx + dy * dy)
        w = tl.where(s_mask[None, :], w, 0.0)
        wz += w * z[None, :]
        wsum += w
    est = tl.sum(wz, axis=1) / tl.sum(wsum, axis=1)
    tl.store(out_ptr + qs * stride_o, est.to(out_ptr.dtype.element_ty), mask=q_mask)


def idw_interpolate(queries: torch.Tensor, sites: torch.Tensor, values: torch.Tensor, BLOCK_Q: int = 64,
                    BLOCK_S: int = 64) -> torch.Tensor:
    Q, S = queries.shape[0], sites.shape[0]
    out = torch.empty((Q,), dtype=queries.dtype, device=queries.device)
    if Q == 0:
        return out
    if S == 0:
        return out.fill_(float("nan"))
    idw_kernel[(triton.cdiv(Q, BLOCK_Q),)](queries, sites, values, out, Q, S, EPS, queries.stride(0),
                                           queries.stride(1), sites.stride(0), sites.stride(1), values.stride(0),
                                           out.stride(0), BLOCK_Q=BLOCK_Q, BLOCK_S=BLOCK_S)
    return out


def reference(queries: torch.Tensor, sites: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    d2 = (queries[:, None, :] - sites[None, :, :]).pow(2).sum(-1)
    w = 1.0 / (d2 + EPS)
    return (w * values[None, :]).sum(-1) / w.sum(-1)


spec = kcheck.Spec(
    name="idw_interpolation",
    kernel=idw_interpolate,
    reference=reference,
    inputs=[kcheck.Tensor("Q", 2, name="queries"), kcheck.Tensor("S", 2, name="sites"),
            kcheck.Tensor("S", name="values")],
    dims={"Q": kcheck.Dim(nominal=256), "S": kcheck.Dim(nominal=200)},
    reduce=["S"],
    configs=[{"BLOCK_Q": 64, "BLOCK_S": 64}, {"BLOCK_Q": 16, "BLOCK_S": 32}],
)
