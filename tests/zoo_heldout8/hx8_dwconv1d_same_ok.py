"""Depthwise 1-D convolution over a sequence, 'same' zero padding, channels last: out[t, c] =
sum_k w[c, k] * x[t + k - K//2, c] for an odd kernel width K (K = 5 here), as nn.Conv1d(C, C, K, padding=K//2,
groups=C, bias=False) on the transposed input. A 2-D grid of BLOCK_T x BLOCK_C tiles; the taps are unrolled at
compile time, out-of-range positions read as zero; fp32 accumulation."""

import torch
import triton
import triton.language as tl

import kcheck

K = 5


@triton.jit
def dwconv1d_kernel(x_ptr, w_ptr, out_ptr, T, C, stride_xt, stride_xc, stride_wc, stride_wk, stride_ot,
                    KW: tl.constexpr, BLOCK_T: tl.constexpr, BLOCK_C: tl.constexpr):
    ts = tl.program_id(0).to(tl.int64) * BLOCK_T + tl.arange(0, BLOCK_T)
    cs = tl.program_id(1).to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C)
    cmask = cs < C
    acc = tl.zeros([BLOCK_T, BLOCK_C], dtype=tl.float32)
    for k in tl.static_range(KW):
        src = ts + (k - KW // 2)
        m = ((src >= 0) & (src < T))[:, None] & cmask[None, :]
        xv = tl.load(x_ptr + src[:, None] * stride_xt + cs[None, :] * stride_xc, mask=m, other=0.0)
        wv = tl.load(w_ptr + cs * stride_wc + k * stride_wk, mask=cmask, other=0.0)
        acc += xv.to(tl.float32) * wv.to(tl.float32)[None, :]
    omask = (ts < T)[:, None] & cmask[None, :]
    tl.store(out_ptr + ts[:, None] * stride_ot + cs[None, :], acc.to(out_ptr.dtype.element_ty), mask=omask)


def dwconv1d_same(x: torch.Tensor, w: torch.Tensor, BLOCK_T: int = 32, BLOCK_C: int = 32) -> torch.Tensor:
    T, C = x.shape
    out = torch.empty((T, C), dtype=x.dtype, device=x.device)
    if T == 0 or C == 0:
        return out
    grid = (triton.cdiv(T, BLOCK_T), triton.cdiv(C, BLOCK_C))
    dwconv1d_kernel[grid](x, w, out, T, C, x.stride(0), x.stride(1), w.stride(0), w.stride(1), out.stride(0),
                          KW=K, BLOCK_T=BLOCK_T, BLOCK_C=BLOCK_C)
    return out


def reference(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    C = x.shape[1]
    y = torch.nn.functional.conv1d(x.t()[None], w[:, None, :], padding=K // 2, groups=C)
    return y[0].t()


spec = kcheck.Spec(
    name="hx8_dwconv1d_same_ok",
    kernel=dwconv1d_same,
    reference=reference,
    inputs=[kcheck.Tensor("T", "C", name="x"), kcheck.Tensor("C", K, name="weight", pattern="randn")],
    dims={"T": kcheck.Dim(nominal=128, min=1), "C": kcheck.Dim(nominal=64, min=1)},
    configs=[{"BLOCK_T": 32, "BLOCK_C": 32}, {"BLOCK_T": 16, "BLOCK_C": 64}],
    properties=[kcheck.props.linear(0)],
)

BUG_CLASS = None
