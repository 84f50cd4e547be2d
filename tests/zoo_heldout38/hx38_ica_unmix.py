"""Unmixing a multichannel recording with an ICA demixing matrix (acoustics, source separation): given the
[K, C] demixing matrix W estimated by ICA and a [C, T] recording X (C microphones, T samples), the K source
signals are

    S[k, t] = sum_c W[k, c] * X[c, t]

A tiled contraction with tl.dot: each program computes a [BLOCK_K, BLOCK_T] tile of S and walks the channels in
BLOCK_C-wide chunks (tiles are at least 16 wide, masked at every edge), accumulating in fp32; the result is in the
input dtype. fp32 inputs multiply in TF32 on the GPU (tl.dot's default), hence the "tf32" precision. int64
offsets, any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "index-transposition"


@triton.jit
def unmix_kernel(w_ptr, x_ptr, s_ptr, K, C, T, stride_wk, stride_wc, stride_xc, stride_xt, stride_sk, stride_st,
                 BLOCK_K: tl.constexpr, BLOCK_C: tl.constexpr, BLOCK_T: tl.constexpr):
    pid_k = tl.program_id(0).to(tl.int64)
    pid_t = tl.program_id(1).to(tl.int64)
    rk = pid_k * BLOCK_K + tl.arange(0, BLOCK_K).to(tl.int64)
    rt = pid_t * BLOCK_T + tl.arange(0, BLOCK_T).to(tl.int64)
    k_mask = rk < K
    t_mask = rt < T
    acc = tl.zeros([BLOCK_K, BLOCK_T], dtype=tl.float32)
    for c0 in range(0, C, BLOCK_C):
        rc = c0 + tl.arange(0, BLOCK_C).to(tl.int64)
        c_mask = rc < C
        w = tl.load(w_ptr + rk[:, None] * stride_wc + rc[None, :] * stride_wk,
                    mask=k_mask[:, None] & c_mask[None, :], other=0.0)
        x = tl.load(x_ptr + rc[:, None] * stride_xc + rt[None, :] * stride_xt,
                    mask=c_mask[:, None] & t_mask[None, :], other=0.0)
        acc = tl.dot(w, x, acc)
    tl.store(s_ptr + rk[:, None] * stride_sk + rt[None, :] * stride_st, acc.to(s_ptr.dtype.element_ty),
             mask=k_mask[:, None] & t_mask[None, :])


def ica_unmix(w: torch.Tensor, x: torch.Tensor, BLOCK_T: int = 128, BLOCK_C: int = 32) -> torch.Tensor:
    K, C = w.shape
    C2, T = x.shape
    assert C == C2, f"the demixing matrix has {C} columns, the recording {C2} channels"
    s = torch.empty((K, T), dtype=x.dtype, device=x.device)
    if K == 0 or T == 0:
        return s
    if C == 0:
        return s.zero_()
    block_k = max(16, min(64, triton.next_power_of_2(K)))
    block_c = max(16, min(BLOCK_C, triton.next_power_of_2(C)))
    block_t = max(16, min(BLOCK_T, triton.next_power_of_2(T)))
    grid = (triton.cdiv(K, block_k), triton.cdiv(T, block_t))
    unmix_kernel[grid](w, x, s, K, C, T, w.stride(0), w.stride(1), x.stride(0), x.stride(1), s.stride(0),
                       s.stride(1), BLOCK_K=block_k, BLOCK_C=block_c, BLOCK_T=block_t)
    return s


spec = kcheck.Spec(
    name="hx38_ica_unmix",
    kernel=ica_unmix,
    reference=torch.matmul,
    inputs=[kcheck.Tensor("K", "C", name="demixing"), kcheck.Tensor("C", "T", name="recording")],
    dims={"K": kcheck.Dim(nominal=16), "C": kcheck.Dim(nominal=24), "T": kcheck.Dim(nominal=2048)},
    dtypes=["tf32", "bf16", "fp16"],
    reduce=["C"],
    configs=[{"BLOCK_T": 128, "BLOCK_C": 32}, {"BLOCK_T": 64, "BLOCK_C": 16}],
    properties=[kcheck.props.linear(1)],
)
