"""AFT-simple, the attention-free transformer's global token mixing (Zhai et al., 2021), per sequence b:

    ctx[b, d] = sum_t softmax_t(K[b, :, d])[t] * V[b, t, d]
    Y[b, t, d] = sigmoid(Q[b, t, d]) * ctx[b, d]

Two kernels. The first takes one sequence and BLOCK_D channels per program and walks the sequence in BLOCK_T-wide
chunks, keeping the running sum of the exponentials and the running weighted sum of V, in fp32. The second writes Y in 2-D tiles. Offsets are int64.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "exp-overflow"


@triton.jit
def aft_context_kernel(k_ptr, v_ptr, ctx_ptr, T, D, s_kb, s_kt, s_kd, s_vb, s_vt, s_vd,
                       BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    ds = tl.program_id(1).to(tl.int64) * BLOCK_D + tl.arange(0, BLOCK_D).to(tl.int64)
    d_ok = ds < D
    s = tl.zeros([BLOCK_D], dtype=tl.float32)
    acc = tl.zeros([BLOCK_D], dtype=tl.float32)
    for start in range(0, T, BLOCK_T):
        ts = start + tl.arange(0, BLOCK_T).to(tl.int64)
        mask = (ts < T)[:, None] & d_ok[None, :]
        k = tl.load(k_ptr + b * s_kb + ts[:, None] * s_kt + ds[None, :] * s_kd, mask=mask,
                    other=-float("inf")).to(tl.float32)
        v = tl.load(v_ptr + b * s_vb + ts[:, None] * s_vt + ds[None, :] * s_vd, mask=mask, other=0.0).to(tl.float32)
        p = tl.exp(k)
        s += tl.sum(p, axis=0)
        acc += tl.sum(p * v, axis=0)
    tl.store(ctx_ptr + b * D + ds, acc / s, mask=d_ok)


@triton.jit
def aft_output_kernel(q_ptr, ctx_ptr, y_ptr, T, D, s_qb, s_qt, s_qd, s_yb, s_yt, s_yd,
                      BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    ts = tl.program_id(1).to(tl.int64) * BLOCK_T + tl.arange(0, BLOCK_T).to(tl.int64)
    ds = tl.program_id(2).to(tl.int64) * BLOCK_D + tl.arange(0, BLOCK_D).to(tl.int64)
    mask = (ts < T)[:, None] & (ds < D)[None, :]
    q = tl.load(q_ptr + b * s_qb + ts[:, None] * s_qt + ds[None, :] * s_qd, mask=mask, other=0.0).to(tl.float32)
    c = tl.load(ctx_ptr + b * D + ds, mask=ds < D, other=0.0)
    y = tl.sigmoid(q) * c[None, :]
    tl.store(y_ptr + b * s_yb + ts[:, None] * s_yt + ds[None, :] * s_yd, y.to(y_ptr.dtype.element_ty), mask=mask)


def aft_simple(q, k, v, BLOCK_T=32, BLOCK_D=64):
    B, T, D = q.shape
    y = torch.empty((B, T, D), dtype=q.dtype, device=q.device)
    if y.numel() == 0:
        return y
    ctx = torch.empty((B, D), dtype=torch.float32, device=q.device)
    aft_context_kernel[(B, triton.cdiv(D, BLOCK_D))](k, v, ctx, T, D, k.stride(0), k.stride(1), k.stride(2),
                                                     v.stride(0), v.stride(1), v.stride(2),
                                                     BLOCK_T=BLOCK_T, BLOCK_D=BLOCK_D)
    aft_output_kernel[(B, triton.cdiv(T, BLOCK_T), triton.cdiv(D, BLOCK_D))](
        q, ctx, y, T, D, q.stride(0), q.stride(1), q.stride(2), y.stride(0), y.stride(1), y.stride(2),
        BLOCK_T=BLOCK_T, BLOCK_D=BLOCK_D)
    return y


def reference(q, k, v):
    w = torch.softmax(k, dim=1)
    return torch.sigmoid(q) * (w * v).sum(1, keepdim=True)


spec = kcheck.Spec(
    name="hx15_aft_simple",
    kernel=aft_simple,
    reference=reference,
    inputs=[kcheck.Tensor("B", "T", "D", name="q"), kcheck.Tensor("B", "T", "D", name="k"),
            kcheck.Tensor("B", "T", "D", name="v")],
    dims={"B": kcheck.Dim(nominal=2, max=4, real=(), large=False), "T": kcheck.Dim(nominal=128, real=(1024,), large=False),
          "D": kcheck.Dim(nominal=64, real=(512,))},
    reduce=["T"],
    configs=[{"BLOCK_T": 32, "BLOCK_D": 64}, {"BLOCK_T": 64, "BLOCK_D": 32}],
)
