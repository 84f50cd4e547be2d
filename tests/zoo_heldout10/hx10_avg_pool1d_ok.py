"""1-D average pooling, kernel 3, stride 2, no padding, over the last dimension:
out[m, j] = (x[m, 2j] + x[m, 2j + 1] + x[m, 2j + 2]) / 3 for j < (L - 3) // 2 + 1 (no output when L < 3).

Programs tile (M, L_out) in BLOCK_M x BLOCK_J blocks; the three taps are read through the input's strides and
summed in fp32; result in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def avgpool_kernel(x_ptr, out_ptr, M, LO, sxm, sxl, BLOCK_M: tl.constexpr, BLOCK_J: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    js = tl.program_id(1).to(tl.int64) * BLOCK_J + tl.arange(0, BLOCK_J)
    mask = (rows < M)[:, None] & (js < LO)[None, :]
    base = x_ptr + rows[:, None] * sxm + (2 * js)[None, :] * sxl
    acc = tl.load(base, mask=mask, other=0.0).to(tl.float32)
    acc += tl.load(base + sxl, mask=mask, other=0.0).to(tl.float32)
    acc += tl.load(base + 2 * sxl, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + rows[:, None] * LO + js[None, :], (acc / 3.0).to(out_ptr.dtype.element_ty), mask=mask)


def avg_pool1d(x: torch.Tensor, BLOCK_M: int = 8, BLOCK_J: int = 128) -> torch.Tensor:
    M, L = x.shape
    LO = (L - 3) // 2 + 1 if L >= 3 else 0
    out = torch.empty((M, LO), dtype=x.dtype, device=x.device)
    if M and LO:
        grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(LO, BLOCK_J))
        avgpool_kernel[grid](x, out, M, LO, x.stride(0), x.stride(1), BLOCK_M=BLOCK_M, BLOCK_J=BLOCK_J)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    if x.shape[-1] < 3:
        return x.new_empty((x.shape[0], 0))
    return torch.nn.functional.avg_pool1d(x[:, None, :], kernel_size=3, stride=2)[:, 0, :]


spec = kcheck.Spec(
    name="hx10_avg_pool1d_ok",
    kernel=avg_pool1d,
    reference=reference,
    inputs=[kcheck.Tensor("M", "L")],
    dims={"M": kcheck.Dim(nominal=64), "L": kcheck.Dim(nominal=1024)},
    configs=[{"BLOCK_M": 8, "BLOCK_J": 128}, {"BLOCK_M": 2, "BLOCK_J": 32}],
)

BUG_CLASS = None
