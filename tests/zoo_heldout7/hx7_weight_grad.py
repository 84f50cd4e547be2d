"""Weight gradient of a linear layer without bias, dW = X^T @ dY, for activations X (T, M) and upstream
gradients dY (T, N) over T tokens: dW[m, n] = sum_t X[t, m] * dY[t, n]. Each program owns a BLOCK_M x BLOCK_N
tile of dW and loops over the tokens in BLOCK_T chunks with tl.dot (fp32 operands, IEEE products, fp32
accumulator). Any strides are accepted; offsets are int64."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def weight_grad_kernel(x_ptr, dy_ptr, dw_ptr, M, N, T,
                       stride_xt, stride_xm, stride_dt, stride_dn, stride_wm, stride_wn,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_T: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)).to(tl.int64)
    rn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)).to(tl.int64)
    rt = tl.arange(0, BLOCK_T).to(tl.int64)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for t0 in range(0, T, BLOCK_T):
        tt = t0 + rt
        xt = tl.load(x_ptr + tt[None, :] * stride_xt + rm[:, None] * stride_xm,
                     mask=(rm[:, None] < M) & (tt[None, :] < T), other=0.0).to(tl.float32)   # (BLOCK_M, BLOCK_T)
        dy = tl.load(dy_ptr + tt[:, None] * stride_dt + rn[None, :] * stride_dn,
                     mask=(tt[:, None] < T) & (rn[None, :] < N), other=0.0).to(tl.float32)  # (BLOCK_T, BLOCK_N)
        acc = tl.dot(xt, dy, acc, input_precision="ieee")
    tl.store(dw_ptr + rm[:, None] * stride_wm + rn[None, :] * stride_wn, acc.to(dw_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def weight_grad(x, dy, BLOCK_M=32, BLOCK_N=32, BLOCK_T=32):
    T, M = x.shape
    N = dy.shape[1]
    dw = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return dw
    if T == 0:
        return dw.zero_()
    grid = (triton.cdiv(N, BLOCK_M), triton.cdiv(M, BLOCK_N))
    weight_grad_kernel[grid](x, dy, dw, M, N, T,
                             x.stride(0), x.stride(1), dy.stride(0), dy.stride(1), dw.stride(0), dw.stride(1),
                             BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_T=BLOCK_T)
    return dw


def reference(x, dy):
    return x.t() @ dy


spec = kcheck.Spec(
    name="hx7_weight_grad",
    kernel=weight_grad,
    reference=reference,
    inputs=[kcheck.Tensor("T", "M", name="x"), kcheck.Tensor("T", "N", name="grad_out")],
    dims={"T": kcheck.Dim(nominal=256), "M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=64)},
    reduce=["T"],
    configs=[{"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_T": 32}, {"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_T": 64}],
)

BUG_CLASS = "index-transposition"
