"""Instance norm without affine for x [B*C, HW] (each row one channel of one image): y = (x - mean) / sqrt(var +
eps) with the biased variance. One program per row; mean and mean of squares gathered in one pass over BLOCK-wide
chunks in fp32, then a second pass normalizes."""

import torch
import triton
import triton.language as tl

import kcheck

EPS = 1e-5


@triton.jit
def instance_norm_kernel(x_ptr, out_ptr, L, stride_x, stride_o, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_x
    o_row = out_ptr + row * stride_o
    s1 = tl.zeros([BLOCK], dtype=tl.float32)
    s2 = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, L, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < L, other=0.0).to(tl.float32)
        s1 += x
        s2 += x * x
    mean = tl.sum(s1, axis=0) / L
    var = tl.sum(s2, axis=0) / L - mean * mean
    rstd = 1.0 / tl.sqrt(var + eps)
    for start in range(0, L, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < L
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(o_row + cols, ((x - mean) * rstd).to(out_ptr.dtype.element_ty), mask=mask)


def instance_norm(x, BLOCK=256):
    R, L = x.shape
    if x.stride(1) != 1:
        x = x.contiguous()
    out = torch.empty((R, L), dtype=x.dtype, device=x.device)
    if R == 0 or L == 0:
        return out
    instance_norm_kernel[(R,)](x, out, L, x.stride(0), out.stride(0), EPS,
                               BLOCK=min(BLOCK, triton.next_power_of_2(L)))
    return out


def reference(x):
    var, mean = torch.var_mean(x, dim=-1, keepdim=True, unbiased=False)
    return (x - mean) / torch.sqrt(var + EPS)


spec = kcheck.Spec(
    name="hx4_instance_norm",
    kernel=instance_norm,
    reference=reference,
    inputs=[kcheck.Tensor("R", "L")],
    dims={"R": kcheck.Dim(nominal=64), "L": kcheck.Dim(nominal=1024, min=1)},
    reduce=["L"],
    configs=[{"BLOCK": 256}, {"BLOCK": 1024}],
)

BUG_CLASS = "cancellation"
