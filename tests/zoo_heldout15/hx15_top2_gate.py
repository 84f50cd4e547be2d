"""Top-2 routing weights of a mixture-of-experts layer (GShard / Mixtral style): for each token, the softmax over
the experts' router logits restricted to its two largest logits,

    w1 = 1 / (1 + exp(l2 - l1)),  w2 = 1 - w1          (l1 >= l2 the two largest logits)

returned as [T, 2] (the expert ids are a separate argmax; these are the combine weights). Row blocks: each program
takes BLOCK_T tokens and the whole expert dimension (E <= 256) in one tile padded to a power of two. Tied logits give
0.5 / 0.5 whichever expert is taken first. The nonfinite pattern is left out: router logits are finite by contract.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "kernel-raises"


@triton.jit
def top2_gate_kernel(x_ptr, out_ptr, T, E, s_xt, s_xe, s_ot, s_ok,
                     BLOCK_T: tl.constexpr, BLOCK_E: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_T + tl.arange(0, BLOCK_T).to(tl.int64)
    cols = tl.arange(0, BLOCK_E)
    row_ok = rows < T
    mask = row_ok[:, None] & (cols < E)[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xt + cols[None, :] * s_xe, mask=mask, other=-float("inf")).to(tl.float32)
    l1 = tl.max(x, axis=1)
    first = tl.min(tl.where(x == l1[:, None], cols[None, :], BLOCK_E), axis=1)
    l2 = tl.max(tl.where(cols[None, :] == first[:, None], -float("inf"), x), axis=1)
    r = tl.exp(l2 - l1)
    w1 = 1.0 / (1.0 + r)
    w2 = r / (1.0 + r)
    tl.store(out_ptr + rows * s_ot, w1.to(out_ptr.dtype.element_ty), mask=row_ok)
    tl.store(out_ptr + rows * s_ot + s_ok, w2.to(out_ptr.dtype.element_ty), mask=row_ok)


def top2_gate(logits, TILE=1024):
    T, E = logits.shape
    out = torch.empty((T, 2), dtype=logits.dtype, device=logits.device)
    if T == 0:
        return out
    block_e = triton.next_power_of_2(E)
    block_t = max(1, min(TILE // block_e, triton.next_power_of_2(T)))
    top2_gate_kernel[(triton.cdiv(T, block_t),)](logits, out, T, E, logits.stride(0), logits.stride(1),
                                                out.stride(0), out.stride(1), BLOCK_T=block_t, BLOCK_E=E)
    return out


def reference(logits):
    return torch.softmax(torch.topk(logits, 2, dim=-1).values, dim=-1)


spec = kcheck.Spec(
    name="hx15_top2_gate",
    kernel=top2_gate,
    reference=reference,
    inputs=[kcheck.Tensor("T", "E", name="router_logits")],
    dims={"T": kcheck.Dim(nominal=256), "E": kcheck.Dim(nominal=8, min=2, max=256, real=(64,), large=False)},
    patterns=["randn", "zeros", "ones", "eye", "arange", "large", "tiny", "constant", "large_mean"],
    configs=[{"TILE": 1024}, {"TILE": 256}],
)
