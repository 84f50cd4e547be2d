"""Wind chill index on a forecast grid (the metric formula of Environment Canada and the US NWS): with the air
temperature T in degrees C and the wind speed V = |v| in km/h,

    WCI = 13.12 + 0.6215 T - 11.37 V^0.16 + 0.3965 T V^0.16

Two [H, W] fields (temperature, wind speed), each with its own strides; a 2-D tile kernel, 1-D grid over the tiles,
fp32 arithmetic (V^0.16 as exp2(0.16 log2 V), 0 at V = 0), int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def wind_chill_kernel(t_ptr, v_ptr, out_ptr, H, W, tiles_w, sth, stw, svh, svw, soh, sow,
                      BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    th = pid // tiles_w
    tw = pid % tiles_w
    rows = th * BLOCK_H + tl.arange(0, BLOCK_H).to(tl.int64)
    cols = tw * BLOCK_W + tl.arange(0, BLOCK_W).to(tl.int64)
    mask = (rows < H)[:, None] & (cols < W)[None, :]
    t = tl.load(t_ptr + rows[:, None] * sth + cols[None, :] * stw, mask=mask, other=0.0).to(tl.float32)
    v = tl.load(v_ptr + rows[:, None] * W + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    p = tl.exp2(0.16 * tl.log2(tl.abs(v)))
    wci = 13.12 + 0.6215 * t - 11.37 * p + 0.3965 * t * p
    tl.store(out_ptr + rows[:, None] * soh + cols[None, :] * sow, wci.to(out_ptr.dtype.element_ty), mask=mask)


def wind_chill(temperature: torch.Tensor, wind: torch.Tensor, BLOCK_H: int = 32, BLOCK_W: int = 32) -> torch.Tensor:
    H, W = temperature.shape
    out = torch.empty((H, W), dtype=temperature.dtype, device=temperature.device)
    if H == 0 or W == 0:
        return out
    tiles_w = triton.cdiv(W, BLOCK_W)
    grid = (triton.cdiv(H, BLOCK_H) * tiles_w,)
    wind_chill_kernel[grid](temperature, wind, out, H, W, tiles_w, temperature.stride(0), temperature.stride(1),
                            wind.stride(0), wind.stride(1), out.stride(0), out.stride(1),
                            BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W)
    return out


def reference(temperature: torch.Tensor, wind: torch.Tensor) -> torch.Tensor:
    p = wind.abs() ** 0.16
    return 13.12 + 0.6215 * temperature - 11.37 * p + 0.3965 * temperature * p


BUG_CLASS = "stride-assumption"

spec = kcheck.Spec(
    name="hx23_wind_chill",
    kernel=wind_chill,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", name="temperature"), kcheck.Tensor("H", "W", name="wind_speed")],
    dims={"H": kcheck.Dim(nominal=96, real=()), "W": kcheck.Dim(nominal=160, real=())},
    configs=[{"BLOCK_H": 32, "BLOCK_W": 32}, {"BLOCK_H": 16, "BLOCK_W": 64}],
)
