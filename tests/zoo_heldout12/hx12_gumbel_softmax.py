import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "exp-overflow"


@triton.jit
def gumbel_softmax_kernel(z_ptr, g_ptr, out_ptr, N, inv_tau, stride_zm, stride_gm, stride_om,
                          BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    mask = cols < N
    z = tl.load(z_ptr + row * stride_zm + cols, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + row * stride_gm + cols, mask=mask, other=0.0).to(tl.float32)
    s = tl.where(mask, (z + g) * inv_tau, -float("inf"))
    e = tl.where(mask, tl.exp(s), 0.0)
    y = e / tl.sum(e, axis=0)
    tl.store(out_ptr + row * stride_om + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def gumbel_softmax(logits, gumbel, tau=1.0):
    M, N = logits.shape
    logits, gumbel = logits.contiguous(), gumbel.contiguous()
    out = torch.empty((M, N), dtype=logits.dtype, device=logits.device)
    if M and N:
        gumbel_softmax_kernel[(M,)](logits, gumbel, out, N, 1.0 / tau, logits.stride(0), gumbel.stride(0),
                                    out.stride(0), BLOCK_N=triton.next_power_of_2(N))
    return out


def reference(logits, gumbel, tau=1.0):
    return torch.softmax((logits + gumbel) / tau, dim=-1)


spec = kcheck.Spec(
    name="hx12_gumbel_softmax",
    kernel=gumbel_softmax,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="logits"), kcheck.Tensor("M", "N", name="gumbel")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=512, max=8192)},
    params={"tau": [1.0, 0.5]},
    reduce=["N"],
)
