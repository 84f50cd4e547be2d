"""Apply a ZCA whitening matrix to centred data (neuroscience / vision preprocessing): Y = X @ W^T, with
X [T, C] samples x channels and W [C, C] the whitening matrix (symmetric in exact arithmetic, not assumed so here).

tl.dot over BLOCK_T x BLOCK_C output tiles, the channel contraction walked in BLOCK_K chunks with masks on every
tail, fp32 accumulator (IEEE products), any strides, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "index-transposition"


@triton.jit
def whiten_kernel(x_ptr, w_ptr, y_ptr, T, C, s_xt, s_xc, s_wr, s_wc, s_yt, s_yc,
                  BLOCK_T: tl.constexpr, BLOCK_C: tl.constexpr, BLOCK_K: tl.constexpr):
    rt = tl.program_id(0).to(tl.int64) * BLOCK_T + tl.arange(0, BLOCK_T).to(tl.int64)
    rc = tl.program_id(1).to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C).to(tl.int64)
    rk = tl.arange(0, BLOCK_K).to(tl.int64)
    acc = tl.zeros((BLOCK_T, BLOCK_C), dtype=tl.float32)
    for k in range(0, C, BLOCK_K):
        kk = k + rk
        x = tl.load(x_ptr + rt[:, None] * s_xt + kk[None, :] * s_xc,
                    mask=(rt[:, None] < T) & (kk[None, :] < C), other=0.0)
        # (W^T)[k, c] = W[c, k]
        wt = tl.load(w_ptr + rc[None, :] * s_wc + kk[:, None] * s_wr,
                     mask=(kk[:, None] < C) & (rc[None, :] < C), other=0.0)
        acc = tl.dot(x.to(tl.float32), wt.to(tl.float32), acc, input_precision="ieee")
    tl.store(y_ptr + rt[:, None] * s_yt + rc[None, :] * s_yc, acc.to(y_ptr.dtype.element_ty),
             mask=(rt[:, None] < T) & (rc[None, :] < C))


def zca_whiten_apply(x, w, BLOCK_T=32, BLOCK_C=32, BLOCK_K=16):
    T, C = x.shape
    y = torch.empty((T, C), dtype=x.dtype, device=x.device)
    if T == 0 or C == 0:
        return y
    grid = (triton.cdiv(T, BLOCK_T), triton.cdiv(C, BLOCK_C))
    whiten_kernel[grid](x, w, y, T, C, x.stride(0), x.stride(1), w.stride(0), w.stride(1), y.stride(0),
                        y.stride(1), BLOCK_T=BLOCK_T, BLOCK_C=BLOCK_C, BLOCK_K=BLOCK_K)
    return y


def reference(x, w):
    return x @ w.t()


spec = kcheck.Spec(
    name="zca_whiten_apply",
    kernel=zca_whiten_apply,
    reference=reference,
    inputs=[kcheck.Tensor("T", "C", name="x"), kcheck.Tensor("C", "C", name="w")],
    dims={"T": kcheck.Dim(nominal=96), "C": kcheck.Dim(nominal=48, max=512)},
    reduce=["C"],
    configs=[{"BLOCK_T": 32, "BLOCK_C": 32, "BLOCK_K": 16}, {"BLOCK_T": 16, "BLOCK_C": 64, "BLOCK_K": 32}],
    properties=[kcheck.props.linear(0)],
)
