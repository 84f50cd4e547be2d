"""Linear-attention state: S = K^T V over a chunk of T tokens (the state a linear-attention or RetNet-style layer
carries to the next chunk). K is (T, Dk), V is (T, Dv), S is (Dk, Dv). 2-D output tiles, a loop over T in BLOCK_T
steps with tl.dot into an fp32 accumulator; the K tile is read transposed through its strides."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "tail-tile-dropped"


@triton.jit
def kv_state_kernel(k_ptr, v_ptr, s_ptr, T, DK, DV, s_kt, s_kd, s_vt, s_vd, s_sk, s_sv,
                    BLOCK_K: tl.constexpr, BLOCK_V: tl.constexpr, BLOCK_T: tl.constexpr):
    rk = tl.program_id(0).to(tl.int64) * BLOCK_K + tl.arange(0, BLOCK_K).to(tl.int64)
    rv = tl.program_id(1).to(tl.int64) * BLOCK_V + tl.arange(0, BLOCK_V).to(tl.int64)
    rt = tl.arange(0, BLOCK_T).to(tl.int64)
    acc = tl.zeros((BLOCK_K, BLOCK_V), dtype=tl.float32)
    for i in range(0, T // BLOCK_T):
        t = i * BLOCK_T + rt
        kt = tl.load(k_ptr + t[None, :] * s_kt + rk[:, None] * s_kd, mask=(rk[:, None] < DK) & (t[None, :] < T),
                     other=0.0)
        v = tl.load(v_ptr + t[:, None] * s_vt + rv[None, :] * s_vd, mask=(t[:, None] < T) & (rv[None, :] < DV),
                    other=0.0)
        acc = tl.dot(kt, v, acc)
    mask = (rk[:, None] < DK) & (rv[None, :] < DV)
    tl.store(s_ptr + rk[:, None] * s_sk + rv[None, :] * s_sv, acc.to(s_ptr.dtype.element_ty), mask=mask)


def kv_state(k: torch.Tensor, v: torch.Tensor, BLOCK_K: int = 64, BLOCK_V: int = 64,
             BLOCK_T: int = 32) -> torch.Tensor:
    T, DK = k.shape
    DV = v.shape[1]
    s = torch.empty((DK, DV), dtype=k.dtype, device=k.device)
    if DK == 0 or DV == 0:
        return s
    if T == 0:
        return s.zero_()
    grid = (triton.cdiv(DK, BLOCK_K), triton.cdiv(DV, BLOCK_V))
    kv_state_kernel[grid](k, v, s, T, DK, DV, k.stride(0), k.stride(1), v.stride(0), v.stride(1),
                          s.stride(0), s.stride(1), BLOCK_K=BLOCK_K, BLOCK_V=BLOCK_V, BLOCK_T=BLOCK_T)
    return s


spec = kcheck.Spec(
    name="hx16_linear_attn_state",
    kernel=kv_state,
    reference=lambda k, v: k.t() @ v,
    inputs=[kcheck.Tensor("T", "DK", name="k"), kcheck.Tensor("T", "DV", name="v")],
    dims={"T": kcheck.Dim(nominal=128), "DK": kcheck.Dim(nominal=64, large=False),
          "DV": kcheck.Dim(nominal=128, large=False)},
    dtypes=["tf32", "bf16", "fp16"],
    reduce=["T"],
    configs=[{"BLOCK_K": 64, "BLOCK_V": 64, "BLOCK_T": 32}, {"BLOCK_K": 32, "BLOCK_V": 32, "BLOCK_T": 16}],
    properties=[kcheck.props.linear(1)],
)
