"""FiLM conditioning (Perez et al., 2018) of a channels-first sequence feature map: x: (B, C, L), and per-sample,
per-channel gamma and beta: (B, C),

    out[b, c, l] = x[b, c, l] * (1 + gamma[b, c]) + beta[b, c]

A flat elementwise kernel over the B*C*L elements of x (made contiguous by the launcher): each element finds its
sample b and channel c from its flat index, and reads gamma and beta through their strides. fp32 arithmetic,
int64 offsets, output in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def film_kernel(x_ptr, g_ptr, b_ptr, out_ptr, total, C, L, s_gb, s_gc, s_bb, s_bc, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < total
    sample = offs // (C * L)
    chan = offs % C
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + sample * s_gb + chan * s_gc, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + sample * s_bb + chan * s_bc, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + offs, (x * (1.0 + g) + b).to(out_ptr.dtype.element_ty), mask=mask)


def film(x, gamma, beta, BLOCK=1024):
    B, C, L = x.shape
    x = x.contiguous()
    out = torch.empty((B, C, L), dtype=x.dtype, device=x.device)
    total = x.numel()
    if total == 0:
        return out
    film_kernel[(triton.cdiv(total, BLOCK),)](x, gamma, beta, out, total, C, L, gamma.stride(0), gamma.stride(1),
                                              beta.stride(0), beta.stride(1), BLOCK=BLOCK)
    return out


def reference(x, gamma, beta):
    return x * (1 + gamma[:, :, None]) + beta[:, :, None]


BUG_CLASS = "wrong-axis"

spec = kcheck.Spec(
    name="hx18_film_ncl",
    kernel=film,
    reference=reference,
    inputs=[kcheck.Tensor("B", "C", "L", name="x"), kcheck.Tensor("B", "C", name="gamma"),
            kcheck.Tensor("B", "C", name="beta")],
    dims={"B": kcheck.Dim(nominal=4, max=8, real=()), "C": kcheck.Dim(nominal=48), "L": kcheck.Dim(nominal=100)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
    properties=[],
)
