import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "kernel-raises"

EPS = 1e-12


@triton.jit
def lp3_kernel(x_ptr, out_ptr, N, eps, stride_xm, stride_xn, stride_om, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_xm
    amax = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK).to(tl.int64)
        x = tl.load(x_row + cols * stride_xn, mask=cols < N, other=0.0).to(tl.float32)
        amax = tl.maximum(amax, tl.abs(x), propagate_nan=tl.PropagateNan.ALL)
    a = tl.max(amax, axis=0)
    inv_a = tl.where(a > 0.0, 1.0 / tl.where(a > 0.0, a, 1.0), 0.0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK).to(tl.int64)
        x = tl.load(x_row + cols * stride_xn, mask=cols < N, other=0.0).to(tl.float32)
        r = tl.abs(x) * inv_a
        acc += r * r * r
    s = tl.sum(acc, axis=0)
    s = tl.maximum(s, 1.0, propagate_nan=tl.PropagateNan.ALL)
    norm = tl.where(a == float("inf"), a, a * tl.exp(tl.log(s) / 3.0))
    inv = 1.0 / tl.maximum(norm, eps, propagate_nan=tl.PropagateNan.ALL)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK).to(tl.int64)
        mask = cols < N
        x = tl.load(x_row + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
        tl.store(out_ptr + row * stride_om + cols, (x * inv).to(out_ptr.dtype.element_ty), mask=mask)


def lp3_normalize(x, BLOCK=1024):
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M and N:
        block = min(BLOCK, N)
        lp3_kernel[(M,)](x, out, N, EPS, x.stride(0), x.stride(1), out.stride(0), BLOCK=block)
    return out


spec = kcheck.Spec(
    name="hx12_lp3_normalize_rows",
    kernel=lp3_normalize,
    reference=lambda x: torch.nn.functional.normalize(x, p=3.0, dim=-1, eps=EPS),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1024)},
    reduce=["N"],
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)
