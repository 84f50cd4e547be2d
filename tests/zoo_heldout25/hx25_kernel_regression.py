"""Nadaraya-Watson kernel regression with a Gaussian kernel: for each query q,
yhat(q) = sum_i w_i y_i / sum_i w_i with w_i = exp(-(q - x_i)^2 / (2 h^2)), the bandwidth h a mode.
Two passes over the samples per block of BLOCK_Q queries, in chunks of BLOCK_S samples ([BLOCK_Q, BLOCK_S] fp32
tiles): the first finds each query's largest log-weight (its nearest sample), the second sums the weights
exp(l - max) and the weighted targets, so a query far from every sample still gets finite weights (the nearest
one weighs 1). Strides passed explicitly, int64 offsets."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "exp-overflow"


@triton.jit
def nw_regression_kernel(q_ptr, x_ptr, y_ptr, out_ptr, Q, S, inv_two_h2, s_q, s_x, s_y, s_o,
                         BLOCK_Q: tl.constexpr, BLOCK_S: tl.constexpr):
    qi = tl.program_id(0).to(tl.int64) * BLOCK_Q + tl.arange(0, BLOCK_Q).to(tl.int64)
    q_mask = qi < Q
    q = tl.load(q_ptr + qi * s_q, mask=q_mask, other=0.0).to(tl.float32)
    # pass 1: the largest log-weight of each query
    m = tl.full([BLOCK_Q], float("-inf"), dtype=tl.float32)
    for s0 in range(0, S, BLOCK_S):
        si = s0 + tl.arange(0, BLOCK_S).to(tl.int64)
        s_mask = si < S
        x = tl.load(x_ptr + si * s_x, mask=s_mask, other=0.0).to(tl.float32)
        d = q[:, None] - x[None, :]
        logits = tl.where(s_mask[None, :], -(d * d) * inv_two_h2, float("-inf"))
        m = tl.maximum(m, tl.max(logits, axis=1))
    # pass 2: weights relative to the largest
    num = tl.zeros([BLOCK_Q], dtype=tl.float32)
    den = tl.zeros([BLOCK_Q], dtype=tl.float32)
    for s0 in range(0, S, BLOCK_S):
        si = s0 + tl.arange(0, BLOCK_S).to(tl.int64)
        s_mask = si < S
        x = tl.load(x_ptr + si * s_x, mask=s_mask, other=0.0).to(tl.float32)
        y = tl.load(y_ptr + si * s_y, mask=s_mask, other=0.0).to(tl.float32)
        d = q[:, None] - x[None, :]
        logits = tl.where(s_mask[None, :], -(d * d) * inv_two_h2, float("-inf"))
        w = tl.exp(logits)
        num += tl.sum(w * y[None, :], axis=1)
        den += tl.sum(w, axis=1)
    tl.store(out_ptr + qi * s_o, (num / den).to(out_ptr.dtype.element_ty), mask=q_mask)


def nw_regression(queries, xs, ys, bandwidth=0.25, BLOCK_Q=32, BLOCK_S=64):
    Q, S = queries.shape[0], xs.shape[0]
    out = torch.empty((Q,), dtype=queries.dtype, device=queries.device)
    if Q == 0:
        return out
    nw_regression_kernel[(triton.cdiv(Q, BLOCK_Q),)](
        queries, xs, ys, out, Q, S, 1.0 / (2.0 * bandwidth * bandwidth),
        queries.stride(0), xs.stride(0), ys.stride(0), out.stride(0), BLOCK_Q=BLOCK_Q, BLOCK_S=BLOCK_S)
    return out


def reference(queries, xs, ys, bandwidth=0.25):
    dt = torch.promote_types(queries.dtype, torch.float32)
    logits = -((queries.to(dt)[:, None] - xs.to(dt)[None, :]) ** 2) / (2 * bandwidth ** 2)
    w = torch.softmax(logits, dim=1)
    return (w @ ys.to(dt)).to(queries.dtype)


spec = kcheck.Spec(
    name="hx25_kernel_regression",
    kernel=nw_regression,
    reference=reference,
    inputs=[kcheck.Tensor("Q", name="queries"), kcheck.Tensor("S", name="xs"), kcheck.Tensor("S", name="ys")],
    params={"bandwidth": [0.25, 0.05]},
    dims={"Q": kcheck.Dim(nominal=300), "S": kcheck.Dim(nominal=1000, min=1)},
    reduce=["S"],
    configs=[{"BLOCK_Q": 32, "BLOCK_S": 64}, {"BLOCK_Q": 16, "BLOCK_S": 128}],
)
