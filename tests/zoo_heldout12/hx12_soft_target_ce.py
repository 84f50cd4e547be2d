import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "stride-assumption"


@triton.jit
def soft_ce_kernel(x_ptr, t_ptr, out_ptr, N, stride_xm, stride_xn, stride_tm, stride_tn, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * N
    t_row = t_ptr + row * N
    m_lane = tl.full([BLOCK], -float("inf"), dtype=tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK).to(tl.int64)
        x = tl.load(x_row + cols * stride_xn, mask=cols < N, other=-float("inf")).to(tl.float32)
        m_lane = tl.maximum(m_lane, x)
    m = tl.max(m_lane, axis=0)
    s = tl.zeros([BLOCK], dtype=tl.float32)
    tx = tl.zeros([BLOCK], dtype=tl.float32)
    ts = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK).to(tl.int64)
        mask = cols < N
        x = tl.load(x_row + cols * stride_xn, mask=mask, other=-float("inf")).to(tl.float32)
        t = tl.load(t_row + cols * stride_tn, mask=mask, other=0.0).to(tl.float32)
        s += tl.where(mask, tl.exp(x - m), 0.0)
        tx += tl.where(mask, t * (x - m), 0.0)
        ts += t
    lse = tl.log(tl.sum(s, axis=0))
    loss = tl.sum(ts, axis=0) * lse - tl.sum(tx, axis=0)
    tl.store(out_ptr + row, loss.to(out_ptr.dtype.element_ty))


def soft_target_ce(logits, target, BLOCK=256):
    M, N = logits.shape
    out = torch.zeros((M,), dtype=logits.dtype, device=logits.device)
    if M and N:
        soft_ce_kernel[(M,)](logits, target, out, N, logits.stride(0), logits.stride(1), target.stride(0),
                             target.stride(1), BLOCK=BLOCK)
    return out


def reference(logits, target):
    return -(target * torch.log_softmax(logits, dim=-1)).sum(-1)


spec = kcheck.Spec(
    name="hx12_soft_target_ce",
    kernel=soft_target_ce,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="logits"), kcheck.Tensor("M", "N", name="target")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1024)},
    reduce=["N"],
    configs=[{"BLOCK": 256}, {"BLOCK": 64}],
)
