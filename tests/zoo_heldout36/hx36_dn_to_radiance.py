"""Remote sensing: radiometric calibration of a pushbroom scan, L = gain[c] * DN + offset[c], every column of
the image a detector with its own gain and offset. 2-D grid of [BLOCK_R, BLOCK_C] tiles, strides honoured, fp32
arithmetic; row offsets in int64 (a scene of many lines passes 2**31 elements)."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "int32-overflow"


@triton.jit
def radiance_kernel(dn_ptr, gain_ptr, off_ptr, out_ptr, R, C, s_dr, s_dc, s_g, s_o, s_or, s_oc,
                    BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    pid_r = tl.program_id(0)
    pid_c = tl.program_id(1).to(tl.int64)
    rows = pid_r * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = pid_c * BLOCK_C + tl.arange(0, BLOCK_C)
    col_mask = cols < C
    mask = (rows < R)[:, None] & col_mask[None, :]
    dn = tl.load(dn_ptr + rows[:, None] * s_dr + cols[None, :] * s_dc, mask=mask, other=0.0).to(tl.float32)
    gain = tl.load(gain_ptr + cols * s_g, mask=col_mask, other=0.0).to(tl.float32)
    off = tl.load(off_ptr + cols * s_o, mask=col_mask, other=0.0).to(tl.float32)
    rad = dn * gain[None, :] + off[None, :]
    tl.store(out_ptr + rows[:, None] * s_or + cols[None, :] * s_oc, rad.to(out_ptr.dtype.element_ty), mask=mask)


def dn_to_radiance(dn: torch.Tensor, gain: torch.Tensor, offset: torch.Tensor, BLOCK_R: int = 32,
                   BLOCK_C: int = 64) -> torch.Tensor:
    R, C = dn.shape
    out = torch.empty((R, C), dtype=dn.dtype, device=dn.device)
    if R == 0 or C == 0:
        return out
    grid = (triton.cdiv(R, BLOCK_R), triton.cdiv(C, BLOCK_C))
    radiance_kernel[grid](dn, gain, offset, out, R, C, dn.stride(0), dn.stride(1), gain.stride(0),
                          offset.stride(0), out.stride(0), out.stride(1), BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C)
    return out


def reference(dn: torch.Tensor, gain: torch.Tensor, offset: torch.Tensor) -> torch.Tensor:
    return dn * gain + offset


spec = kcheck.Spec(
    name="hx36_dn_to_radiance",
    kernel=dn_to_radiance,
    reference=reference,
    inputs=[kcheck.Tensor("R", "C", name="dn"), kcheck.Tensor("C", name="gain"), kcheck.Tensor("C", name="offset")],
    dims={"R": kcheck.Dim(nominal=256), "C": kcheck.Dim(nominal=320)},
    configs=[{"BLOCK_R": 32, "BLOCK_C": 64}, {"BLOCK_R": 8, "BLOCK_C": 128}],
)
