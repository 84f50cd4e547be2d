"""Column fixed-pattern-noise correction of a CMOS sensor frame: every column of the readout has its own offset
and gain, calibrated once, and the corrected frame is y[r, c] = (x[r, c] - offset[c]) * gain[c].

A 2-D tile kernel over the [R, C] frame with any strides: the 1-D grid enumerates the tiles; each tile loads its
BLOCK_C offsets and gains once and broadcasts them down its BLOCK_R rows. fp32 arithmetic, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def fpn_correct_kernel(x_ptr, off_ptr, gain_ptr, out_ptr, R, C, tiles_c, sxr, sxc, s_off, s_gain, sor, soc,
                       BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    tr = pid // tiles_c
    tc = pid % tiles_c
    rows = tr * BLOCK_R + tl.arange(0, BLOCK_R).to(tl.int64)
    cols = tc * BLOCK_C + tl.arange(0, BLOCK_C).to(tl.int64)
    rmask = rows < R
    cmask = cols < C
    mask = rmask[:, None] & cmask[None, :]
    x = tl.load(x_ptr + rows[:, None] * sxr + cols[None, :] * sxc, mask=mask, other=0.0).to(tl.float32)
    off = tl.load(off_ptr + cols * s_off, mask=cmask, other=0.0).to(tl.float32)
    gain = tl.load(gain_ptr + rows * s_gain, mask=rmask, other=0.0).to(tl.float32)
    y = (x - off[None, :]) * gain[:, None]
    tl.store(out_ptr + rows[:, None] * sor + cols[None, :] * soc, y.to(out_ptr.dtype.element_ty), mask=mask)


def fpn_correct(x: torch.Tensor, offset: torch.Tensor, gain: torch.Tensor, BLOCK_R: int = 32,
                BLOCK_C: int = 64) -> torch.Tensor:
    R, C = x.shape
    out = torch.empty((R, C), dtype=x.dtype, device=x.device)
    if R == 0 or C == 0:
        return out
    tiles_c = triton.cdiv(C, BLOCK_C)
    grid = (triton.cdiv(R, BLOCK_R) * tiles_c,)
    fpn_correct_kernel[grid](x, offset, gain, out, R, C, tiles_c, x.stride(0), x.stride(1), offset.stride(0),
                             gain.stride(0), out.stride(0), out.stride(1), BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C)
    return out


def reference(x: torch.Tensor, offset: torch.Tensor, gain: torch.Tensor) -> torch.Tensor:
    return (x - offset) * gain


BUG_CLASS = "wrong-axis"

spec = kcheck.Spec(
    name="hx23_column_fpn_correct",
    kernel=fpn_correct,
    reference=reference,
    inputs=[kcheck.Tensor("R", "C", name="frame"), kcheck.Tensor("C", pattern="randn", name="offset"),
            kcheck.Tensor("C", pattern="randn", name="gain")],
    dims={"R": kcheck.Dim(nominal=96, real=()), "C": kcheck.Dim(nominal=160, real=())},
    configs=[{"BLOCK_R": 32, "BLOCK_C": 64}, {"BLOCK_R": 64, "BLOCK_C": 16}],
)
