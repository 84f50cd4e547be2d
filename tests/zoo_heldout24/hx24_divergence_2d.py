"""Divergence of a 2-D vector field (u, v) sampled on a grid [H, W] with unit spacing:
div = du/dx + dv/dy, central differences inside and one-sided differences at the borders (numpy.gradient's
edge_order=1; a dimension of size 1 contributes 0). One flat launch over the H*W output elements, each recovering
its (row, column); u and v may have any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "stride-assumption"


@triton.jit
def divergence_kernel(u_ptr, v_ptr, out_ptr, n, H, W, su_h, su_w, sv_h, sv_w, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    r = offs // W
    c = offs % W
    cl = tl.maximum(c - 1, 0)
    cr = tl.minimum(c + 1, W - 1)
    ru = tl.maximum(r - 1, 0)
    rd = tl.minimum(r + 1, H - 1)
    u_r = tl.load(u_ptr + r * su_h + cr * su_w, mask=mask, other=0.0).to(tl.float32)
    u_l = tl.load(u_ptr + r * su_h + cl * su_w, mask=mask, other=0.0).to(tl.float32)
    v_d = tl.load(v_ptr + rd * sv_h + c * sv_w, mask=mask, other=0.0).to(tl.float32)
    v_u = tl.load(v_ptr + ru * sv_h + c * sv_w, mask=mask, other=0.0).to(tl.float32)
    dudx = (u_r - u_l) / tl.maximum(cr - cl, 1).to(tl.float32)
    dvdy = (v_d - v_u) / tl.maximum(rd - ru, 1).to(tl.float32)
    tl.store(out_ptr + offs, (dudx + dvdy).to(out_ptr.dtype.element_ty), mask=mask)


def divergence_2d(u: torch.Tensor, v: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    H, W = u.shape
    out = torch.empty((H, W), dtype=u.dtype, device=u.device)
    n = H * W
    if n:
        divergence_kernel[(triton.cdiv(n, BLOCK),)](u, v, out, n, H, W, u.stride(0), u.stride(1),
                                                    W, 1, BLOCK=BLOCK)
    return out


def _diff(x: torch.Tensor, dim: int) -> torch.Tensor:
    n = x.shape[dim]
    i = torch.arange(n, device=x.device)
    lo, hi = (i - 1).clamp(min=0), (i + 1).clamp(max=n - 1)
    span = (hi - lo).clamp(min=1).to(x.dtype)
    shape = [1, 1]
    shape[dim] = n
    return (x.index_select(dim, hi) - x.index_select(dim, lo)) / span.view(shape)


def reference(u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    return _diff(u, 1) + _diff(v, 0)


spec = kcheck.Spec(
    name="hx24_divergence_2d",
    kernel=divergence_2d,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", name="u"), kcheck.Tensor("H", "W", name="v")],
    dims={"H": kcheck.Dim(nominal=64), "W": kcheck.Dim(nominal=96)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
    properties=[kcheck.props.linear()],
)
