"""Split of a fused QKV projection into per-head query, key and value tensors: x is [T, 3, H, D] (token,
q/k/v, head, head dim), and q, k, v come back contiguous as [H, T, D] each, the layout an attention kernel reads.

One program per (token, head) copies the three D-long vectors of its head, reading through the input's own
strides and writing whole rows of the three outputs. int64 offsets; the input's dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def qkv_split_kernel(x_ptr, q_ptr, k_ptr, v_ptr, T, H, stride_xt, stride_xs, stride_xh, stride_xd,
                     BLOCK_D: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    t = pid // H
    h = pid % H
    d = tl.arange(0, BLOCK_D).to(tl.int64)
    src = x_ptr + t * stride_xt + h * stride_xh + d * stride_xd
    dst = (h * T + t) * BLOCK_D + d
    tl.store(q_ptr + dst, tl.load(src))
    tl.store(k_ptr + dst, tl.load(src + stride_xs))
    tl.store(v_ptr + dst, tl.load(src + 2 * stride_xs))


def qkv_split(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    T, three, H, D = x.shape
    assert three == 3, f"expected [T, 3, H, D], got {tuple(x.shape)}"
    q, k, v = (torch.empty((H, T, D), dtype=x.dtype, device=x.device) for _ in range(3))
    if T * H * D == 0:
        return q, k, v
    qkv_split_kernel[(T * H,)](x, q, k, v, T, H, x.stride(0), x.stride(1), x.stride(2), x.stride(3), BLOCK_D=D)
    return q, k, v


def reference(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    q, k, v = x.permute(1, 2, 0, 3).unbind(0)
    return q, k, v


spec = kcheck.Spec(
    name="hx5_qkv_head_split",
    kernel=qkv_split,
    reference=reference,
    inputs=[kcheck.Tensor("T", 3, "H", "D")],
    dims={"T": kcheck.Dim(nominal=128), "H": kcheck.Dim(nominal=8), "D": kcheck.Dim(nominal=64)},
)

BUG_CLASS = "kernel-raises"
