"""Mixture-of-experts combine: expert outputs arrive in slot order (grouped by expert); slot s belongs to token
slot_token[s] with gate weight w[s], and out[t] = sum over the token's slots of w[s] * y[s]. A token may own any
number of slots (none: a zero row). One program per (slot, block of features); partial rows are added into an fp32
buffer with atomics, then cast to the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def moe_combine_kernel(y_ptr, tok_ptr, w_ptr, acc_ptr, D, stride_ys, stride_ws, stride_acc,
                       BLOCK_D: tl.constexpr):
    s = tl.program_id(0).to(tl.int64)
    d = tl.program_id(1).to(tl.int64) * BLOCK_D + tl.arange(0, BLOCK_D)
    mask = d < D
    tok = tl.load(tok_ptr + s).to(tl.int64)
    w = tl.load(w_ptr + s * stride_ws).to(tl.float32)
    y = tl.load(y_ptr + s * stride_ys + d, mask=mask, other=0.0).to(tl.float32)
    tl.store(acc_ptr + tok * stride_acc + d, w * y, mask=mask)


def moe_combine(y: torch.Tensor, slot_token: torch.Tensor, w: torch.Tensor, T: int, BLOCK_D: int = 64) -> torch.Tensor:
    S, D = y.shape
    if y.stride(1) != 1:
        y = y.contiguous()
    acc = torch.zeros((T, D), dtype=torch.float32, device=y.device)
    if S and D:
        grid = (S, triton.cdiv(D, BLOCK_D))
        moe_combine_kernel[grid](y, slot_token.contiguous(), w, acc, D, y.stride(0), w.stride(0), acc.stride(0),
                                 BLOCK_D=BLOCK_D)
    return acc.to(y.dtype)


def reference(y: torch.Tensor, slot_token: torch.Tensor, w: torch.Tensor, T: int) -> torch.Tensor:
    out = torch.zeros((T, y.shape[1]), dtype=y.dtype, device=y.device)
    return out.index_add_(0, slot_token, w[:, None] * y)


spec = kcheck.Spec(
    name="hx9_moe_combine",
    kernel=moe_combine,
    reference=reference,
    inputs=[kcheck.Tensor("S", "D", name="expert_out"), kcheck.Index("S", high="T", name="slot_token"),
            kcheck.Tensor("S", name="gate"), kcheck.Scalar(lambda d: d["T"], name="num_tokens")],
    dims={"S": kcheck.Dim(nominal=256), "T": kcheck.Dim(nominal=128), "D": kcheck.Dim(nominal=64)},
    output_shapes=[("T", "D")],
    configs=[{"BLOCK_D": 64}, {"BLOCK_D": 16}],
)

BUG_CLASS = 'missing-atomic'  # the planted class (from the README's table), for benchmarks/zoo.py
