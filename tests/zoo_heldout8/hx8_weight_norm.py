"""Weight normalization (Salimans & Kingma): W = g * V / ||V||, the norm taken over each output channel's row of V
(O, I) and g one gain per output channel. One program per output channel: a first pass sums the squares of the
row in fp32, a second pass writes the scaled row in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def weight_norm_kernel(v_ptr, g_ptr, w_ptr, n_in, stride_vo, stride_vi, stride_g, stride_wo,
                       BLOCK_I: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    v_row = v_ptr + row * stride_vo
    acc = tl.zeros([BLOCK_I], dtype=tl.float32)
    for start in range(0, n_in, BLOCK_I):
        cols = start + tl.arange(0, BLOCK_I)
        v = tl.load(v_row + cols * stride_vi, mask=cols < n_in, other=0.0).to(tl.float32)
        acc += v * v
    inv_norm = 1.0 / tl.sqrt(tl.sum(acc, axis=0))
    for start in range(0, n_in, BLOCK_I):
        cols = start + tl.arange(0, BLOCK_I)
        mask = cols < n_in
        v = tl.load(v_row + cols * stride_vi, mask=mask, other=0.0).to(tl.float32)
        g = tl.load(g_ptr + cols * stride_g, mask=mask, other=0.0).to(tl.float32)
        tl.store(w_ptr + row * stride_wo + cols, (g * v * inv_norm).to(w_ptr.dtype.element_ty), mask=mask)


def weight_norm(v: torch.Tensor, g: torch.Tensor, BLOCK_I: int = 256) -> torch.Tensor:
    n_out, n_in = v.shape
    w = torch.empty((n_out, n_in), dtype=v.dtype, device=v.device)
    if n_out == 0 or n_in == 0:
        return w
    block_i = min(BLOCK_I, triton.next_power_of_2(n_in))
    weight_norm_kernel[(n_out,)](v, g, w, n_in, v.stride(0), v.stride(1), g.stride(0), w.stride(0), BLOCK_I=block_i)
    return w


def reference(v: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
    return g[:, None] * v / v.norm(dim=1, keepdim=True)


spec = kcheck.Spec(
    name="hx8_weight_norm",
    kernel=weight_norm,
    reference=reference,
    inputs=[kcheck.Tensor("O", "I", name="v"), kcheck.Tensor("O", name="g")],
    dims={"O": kcheck.Dim(nominal=128), "I": kcheck.Dim(nominal=256)},
    reduce=["I"],
    configs=[{"BLOCK_I": 256}, {"BLOCK_I": 64}],
    properties=[kcheck.props.linear(1)],
)

BUG_CLASS = "wrong-axis"
