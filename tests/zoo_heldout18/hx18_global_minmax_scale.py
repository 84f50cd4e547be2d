"""Global min-max scaling of a tensor to [0, 1] (image / feature normalization over the whole tensor):

    out = (x - min(x)) / (max(x) - min(x)),   and 0 everywhere when max(x) == min(x)

One launch over the flattened tensor (made contiguous): each program writes the min and max of its BLOCK
elements to a partials buffer, then, after a barrier, reads all the partials back, reduces them to the global min
and max (every program does this small reduction itself) and scales its BLOCK elements. fp32 arithmetic, output in
the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def minmax_scale_kernel(x_ptr, pmin_ptr, pmax_ptr, out_ptr, n, n_parts, BLOCK: tl.constexpr,
                        BLOCK_P: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0).to(tl.float32)
    tl.store(pmin_ptr + pid, tl.min(tl.where(offs < n, x, float("inf")), axis=0))
    tl.store(pmax_ptr + pid, tl.max(tl.where(offs < n, x, float("-inf")), axis=0))
    tl.debug_barrier()
    parts = tl.arange(0, BLOCK_P)
    lo = tl.full((BLOCK_P,), float("inf"), tl.float32)
    hi = tl.full((BLOCK_P,), float("-inf"), tl.float32)
    for start in range(0, n_parts, BLOCK_P):
        q = start + parts
        lo = tl.minimum(lo, tl.load(pmin_ptr + q, mask=q < n_parts, other=float("inf")))
        hi = tl.maximum(hi, tl.load(pmax_ptr + q, mask=q < n_parts, other=float("-inf")))
    x_min = tl.min(lo, axis=0)
    span = tl.max(hi, axis=0) - x_min
    out = tl.where(span > 0, (x - x_min) / tl.where(span > 0, span, 1.0), 0.0)
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=offs < n)


def minmax_scale(x, BLOCK=1024):
    xc = x.contiguous()
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = xc.numel()
    if n == 0:
        return out
    parts = triton.cdiv(n, BLOCK)
    pmin = torch.empty((parts,), dtype=torch.float32, device=x.device)
    pmax = torch.empty((parts,), dtype=torch.float32, device=x.device)
    minmax_scale_kernel[(parts,)](xc, pmin, pmax, out, n, parts, BLOCK=BLOCK, BLOCK_P=128)
    return out


def reference(x):
    lo, hi = x.min(), x.max()
    span = hi - lo
    return torch.where(span > 0, (x - lo) / torch.where(span > 0, span, torch.ones_like(span)),
                       torch.zeros_like(x))


BUG_CLASS = "race"

spec = kcheck.Spec(
    name="hx18_global_minmax_scale",
    kernel=minmax_scale,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=256)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
    patterns=["randn", "zeros", "ones", "eye", "arange", "large", "tiny", "constant", "large_mean"],
)
