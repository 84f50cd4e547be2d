"""The key-value state of causal-free linear attention (ML layers): per head h, S[h] = K[h]^T V[h], the sum over
the T positions of the outer products k_t v_t^T, for K, V of shape [H, T, D].

One program per (head, BLOCK_D x BLOCK_D tile of the state), the positions walked in BLOCK_T chunks with tl.dot
(fp32 accumulator, IEEE products); BLOCK_D is the next power of two of D, at least 16 (tl.dot's smallest tile).
Any strides, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "kernel-raises"


@triton.jit
def kv_state_kernel(k_ptr, v_ptr, s_ptr, T, D, s_kh, s_kt, s_kd, s_vh, s_vt, s_vd, s_sh, s_si, s_sj,
                    BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr):
    h = tl.program_id(0).to(tl.int64)
    ri = tl.program_id(1).to(tl.int64) * BLOCK_D + tl.arange(0, BLOCK_D).to(tl.int64)
    rj = tl.program_id(2).to(tl.int64) * BLOCK_D + tl.arange(0, BLOCK_D).to(tl.int64)
    rt = tl.arange(0, BLOCK_T).to(tl.int64)
    acc = tl.zeros((BLOCK_D, BLOCK_D), dtype=tl.float32)
    for start in range(0, T, BLOCK_T):
        ts = start + rt
        kt = tl.load(k_ptr + h * s_kh + ri[:, None] * s_kd + ts[None, :] * s_kt,
                     mask=(ri[:, None] < D) & (ts[None, :] < T), other=0.0).to(tl.float32)
        v = tl.load(v_ptr + h * s_vh + ts[:, None] * s_vt + rj[None, :] * s_vd,
                    mask=(ts[:, None] < T) & (rj[None, :] < D), other=0.0).to(tl.float32)
        acc = tl.dot(kt, v, acc, input_precision="ieee")
    tl.store(s_ptr + h * s_sh + ri[:, None] * s_si + rj[None, :] * s_sj, acc.to(s_ptr.dtype.element_ty),
             mask=(ri[:, None] < D) & (rj[None, :] < D))


def kv_state(k, v, BLOCK_T=32):
    H, T, D = k.shape
    s = torch.empty((H, D, D), dtype=k.dtype, device=k.device)
    if H == 0 or D == 0:
        return s
    block_d = max(16, D)
    block_d = min(block_d, 64)
    grid = (H, triton.cdiv(D, block_d), triton.cdiv(D, block_d))
    kv_state_kernel[grid](k, v, s, T, D, k.stride(0), k.stride(1), k.stride(2), v.stride(0), v.stride(1),
                          v.stride(2), s.stride(0), s.stride(1), s.stride(2), BLOCK_T=BLOCK_T, BLOCK_D=block_d)
    return s


def reference(k, v):
    return k.transpose(1, 2) @ v


spec = kcheck.Spec(
    name="linear_attention_kv_state",
    kernel=kv_state,
    reference=reference,
    inputs=[kcheck.Tensor("H", "T", "D", name="k"), kcheck.Tensor("H", "T", "D", name="v")],
    dims={"H": kcheck.Dim(nominal=4, max=8), "T": kcheck.Dim(nominal=200), "D": kcheck.Dim(nominal=48, max=256)},
    reduce=["T"],
    configs=[{"BLOCK_T": 32}, {"BLOCK_T": 16}],
)
