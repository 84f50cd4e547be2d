"""L2 pooling over the last axis (torch.nn.functional.lp_pool1d with norm_type=2, kernel 3, stride 2):
y[b, c, o] = sqrt(sum_{k<3} x[b, c, 2o + k]^2), output length (L - 3) // 2 + 1.

One program per (row of B*C, BLOCK_O outputs); the three taps are loaded as a [BLOCK_O, 4] tile and reduced in fp32.
int64 offsets, any strides. (Squares of subnormals underflow in fp32, as in torch's own fp32 lp_pool1d, so the
"tiny" pattern is left out.)

Planted bug (stride-assumption): the launcher passes the strides of a contiguous [B, C, L] tensor (C*L, L, 1)
instead of x's own strides: a padded or sliced input is read at the wrong places.
"""

import torch
import triton
import triton.language as tl

import kcheck

KSIZE = 3
STRIDE = 2


@triton.jit
def lp_pool_kernel(x_ptr, out_ptr, C, L, LO, sxb, sxc, sxl, sob, soc, sol, n_oblocks,
                   KSIZE: tl.constexpr, STRIDE: tl.constexpr, BLOCK_O: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    row = pid // n_oblocks
    b = row // C
    c = row % C
    os_ = (pid % n_oblocks) * BLOCK_O + tl.arange(0, BLOCK_O)
    ks = tl.arange(0, 4)
    omask = os_ < LO
    src = os_[:, None] * STRIDE + ks[None, :]
    mask = omask[:, None] & (ks[None, :] < KSIZE)
    x = tl.load(x_ptr + b * sxb + c * sxc + src * sxl, mask=mask, other=0.0).to(tl.float32)
    y = tl.sqrt(tl.sum(x * x, axis=1))
    tl.store(out_ptr + b * sob + c * soc + os_ * sol, y.to(out_ptr.dtype.element_ty), mask=omask)


def lp_pool1d(x, BLOCK_O=128):
    B, C, L = x.shape
    LO = (L - KSIZE) // STRIDE + 1
    out = torch.empty((B, C, LO), dtype=x.dtype, device=x.device)
    if out.numel() == 0:
        return out
    n_oblocks = triton.cdiv(LO, BLOCK_O)
    lp_pool_kernel[(B * C * n_oblocks,)](
        x, out, C, L, LO, C * L, L, 1, out.stride(0), out.stride(1), out.stride(2),
        n_oblocks, KSIZE=KSIZE, STRIDE=STRIDE, BLOCK_O=BLOCK_O)
    return out


def reference(x):
    return x.unfold(-1, KSIZE, STRIDE).pow(2).sum(-1).sqrt()


spec = kcheck.Spec(
    name="hx11_lp_pool1d",
    kernel=lp_pool1d,
    reference=reference,
    inputs=[kcheck.Tensor("B", "C", "L")],
    dims={"B": kcheck.Dim(nominal=2, max=16), "C": kcheck.Dim(nominal=16), "L": kcheck.Dim(nominal=301, min=3)},
    patterns=["randn", "zeros", "ones", "eye", "arange", "large", "nonfinite", "constant", "large_mean"],
    configs=[{"BLOCK_O": 128}, {"BLOCK_O": 32}],
)

BUG_CLASS = "stride-assumption"  # contiguous strides assumed for x
