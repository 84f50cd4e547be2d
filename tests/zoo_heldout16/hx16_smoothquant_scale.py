"""SmoothQuant activation smoothing: y = x * inv_s, where inv_s (C) is the per-channel 1/s folded out of the next
linear layer's weight; x is (T, C) tokens x channels. 2-D tiles of BLOCK_T tokens x BLOCK_C channels, strides
honoured, fp32 arithmetic, output in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-axis"


@triton.jit
def smooth_kernel(x_ptr, s_ptr, y_ptr, T, C, sxt, sxc, syt, syc, BLOCK_T: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_T + tl.arange(0, BLOCK_T).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C).to(tl.int64)
    rmask = rows < T
    cmask = cols < C
    mask = rmask[:, None] & cmask[None, :]
    x = tl.load(x_ptr + rows[:, None] * sxt + cols[None, :] * sxc, mask=mask, other=0.0).to(tl.float32)
    inv = tl.load(s_ptr + rows, mask=rmask, other=0.0).to(tl.float32)
    y = x * inv[:, None]
    tl.store(y_ptr + rows[:, None] * syt + cols[None, :] * syc, y.to(y_ptr.dtype.element_ty), mask=mask)


def smooth_activations(x: torch.Tensor, inv_s: torch.Tensor, BLOCK_T: int = 32, BLOCK_C: int = 128) -> torch.Tensor:
    T, C = x.shape
    y = torch.empty((T, C), dtype=x.dtype, device=x.device)
    if T and C:
        grid = (triton.cdiv(T, BLOCK_T), triton.cdiv(C, BLOCK_C))
        smooth_kernel[grid](x, inv_s, y, T, C, x.stride(0), x.stride(1), y.stride(0), y.stride(1),
                            BLOCK_T=BLOCK_T, BLOCK_C=BLOCK_C)
    return y


spec = kcheck.Spec(
    name="hx16_smoothquant_scale",
    kernel=smooth_activations,
    reference=lambda x, inv_s: x * inv_s,
    inputs=[kcheck.Tensor("T", "C", name="x"), kcheck.Tensor("C", name="inv_smooth")],
    dims={"T": kcheck.Dim(nominal=256), "C": kcheck.Dim(nominal=192, max=65535 * 32)},
    configs=[{"BLOCK_T": 32, "BLOCK_C": 128}, {"BLOCK_T": 8, "BLOCK_C": 32}],
    properties=[kcheck.props.linear(0)],
)
