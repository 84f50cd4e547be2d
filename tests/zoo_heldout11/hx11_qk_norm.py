"""QK-norm: RMS-normalize every head vector of the queries and of the keys before attention, each with its own
learned weight: q_out[t, h] = q[t, h] / sqrt(mean(q[t, h]^2) + eps) * wq, likewise k (two outputs).

One program per (token, head) pair, on a flat 1-D grid; the head dimension fits one block (next power of two,
masked). Works on any strides; int64 offsets.

Planted bug (kernel-raises): the launcher passes the head dimension itself as BLOCK_D; tl.arange needs a power of
two, so the kernel fails to compile for head dims such as 17 or 96.
"""

import torch
import triton
import triton.language as tl

import kcheck

EPS = 1e-6


@triton.jit
def qk_norm_kernel(q_ptr, k_ptr, wq_ptr, wk_ptr, qo_ptr, ko_ptr, H, D,
                   sqt, sqh, sqd, skt, skh, skd, sot, soh, sod, eps, BLOCK_D: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    t = pid // H
    h = pid % H
    ds = tl.arange(0, BLOCK_D)
    m = ds < D
    q = tl.load(q_ptr + t * sqt + h * sqh + ds * sqd, mask=m, other=0.0).to(tl.float32)
    k = tl.load(k_ptr + t * skt + h * skh + ds * skd, mask=m, other=0.0).to(tl.float32)
    wq = tl.load(wq_ptr + ds, mask=m, other=0.0).to(tl.float32)
    wk = tl.load(wk_ptr + ds, mask=m, other=0.0).to(tl.float32)
    qn = q / tl.sqrt(tl.sum(q * q, axis=0) / D + eps) * wq
    kn = k / tl.sqrt(tl.sum(k * k, axis=0) / D + eps) * wk
    tl.store(qo_ptr + t * sot + h * soh + ds * sod, qn.to(qo_ptr.dtype.element_ty), mask=m)
    tl.store(ko_ptr + t * sot + h * soh + ds * sod, kn.to(ko_ptr.dtype.element_ty), mask=m)


def qk_norm(q, k, wq, wk):
    T, H, D = q.shape
    q_out = torch.empty((T, H, D), dtype=q.dtype, device=q.device)
    k_out = torch.empty((T, H, D), dtype=k.dtype, device=k.device)
    if q_out.numel() == 0:
        return q_out, k_out
    qk_norm_kernel[(T * H,)](
        q, k, wq.contiguous(), wk.contiguous(), q_out, k_out, H, D,
        q.stride(0), q.stride(1), q.stride(2), k.stride(0), k.stride(1), k.stride(2),
        q_out.stride(0), q_out.stride(1), q_out.stride(2), EPS, BLOCK_D=D)
    return q_out, k_out


def reference(q, k, wq, wk):
    def rms(v, w):
        return v * torch.rsqrt(v.pow(2).mean(-1, keepdim=True) + EPS) * w
    return rms(q, wq), rms(k, wk)


spec = kcheck.Spec(
    name="hx11_qk_norm",
    kernel=qk_norm,
    reference=reference,
    inputs=[kcheck.Tensor("T", "H", "D", name="q"), kcheck.Tensor("T", "H", "D", name="k"),
            kcheck.Tensor("D", name="q_weight", pattern="randn"), kcheck.Tensor("D", name="k_weight", pattern="randn")],
    dims={"T": kcheck.Dim(nominal=32), "H": kcheck.Dim(nominal=4, max=16), "D": kcheck.Dim(nominal=64, max=1024)},
    reduce=["D"],
)

BUG_CLASS = "kernel-raises"  # BLOCK_D=D: tl.arange of a non-power-of-2
