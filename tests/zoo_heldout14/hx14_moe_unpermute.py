"""MoE unpermute-and-combine: after the experts ran on their tokens (rows sorted by expert), scatter each expert
output row back to its token, weighted by the router's gate: out[token_idx[r]] += gate[r] * y[r].

A token appears once per expert it was routed to (top-k), and some tokens get no row at all (dropped by the
capacity limit), so the combine is a scatter-add: one program per expert row, walking D in BLOCK_D chunks and
adding into an fp32 [T, D] accumulator with atomics; the result is cast back to the activations' dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "uninitialized-accumulator"


@triton.jit
def unpermute_kernel(y_ptr, gate_ptr, idx_ptr, acc_ptr, D, stride_yr, stride_yd, stride_g,
                     BLOCK_D: tl.constexpr):
    r = tl.program_id(0).to(tl.int64)
    token = tl.load(idx_ptr + r)
    g = tl.load(gate_ptr + r * stride_g).to(tl.float32)
    for d0 in range(0, D, BLOCK_D):
        cols = d0 + tl.arange(0, BLOCK_D)
        m = cols < D
        v = tl.load(y_ptr + r * stride_yr + cols * stride_yd, mask=m, other=0.0).to(tl.float32)
        tl.atomic_add(acc_ptr + token * D + cols, g * v, mask=m)


def moe_unpermute(y: torch.Tensor, gate: torch.Tensor, token_idx: torch.Tensor, num_tokens: int,
                  BLOCK_D: int = 128) -> torch.Tensor:
    R, D = y.shape
    acc = torch.empty((num_tokens, D), dtype=torch.float32, device=y.device)
    if R and D:
        unpermute_kernel[(R,)](y, gate, token_idx, acc, D, y.stride(0), y.stride(1), gate.stride(0),
                               BLOCK_D=BLOCK_D)
    return acc.to(y.dtype)


def reference(y: torch.Tensor, gate: torch.Tensor, token_idx: torch.Tensor, num_tokens: int) -> torch.Tensor:
    out = torch.zeros((num_tokens, y.shape[1]), dtype=y.dtype, device=y.device)
    return out.index_add_(0, token_idx, gate[:, None] * y)


spec = kcheck.Spec(
    name="hx14_moe_unpermute",
    kernel=moe_unpermute,
    reference=reference,
    inputs=[kcheck.Tensor("R", "D", name="expert_out"), kcheck.Tensor("R", name="gate"),
            kcheck.Index("R", high="T", name="token_idx"), kcheck.Scalar(lambda d: d["T"], name="num_tokens")],
    dims={"R": kcheck.Dim(nominal=256), "D": kcheck.Dim(nominal=128), "T": kcheck.Dim(nominal=128)},
    reduce=["R"],
    configs=[{"BLOCK_D": 128}, {"BLOCK_D": 32}],
)
