"""Reverberation time of rooms by Sabine's formula (room acoustics).

RT60[r] = 0.161 * V[r] / A[r],   A[r] = sum_k S[r, k] * alpha[r, k]
with V the room volume (m^3), S the area of surface k (m^2) and alpha its absorption coefficient. One program per
BLOCK_R rooms sums the absorption area over the surfaces in BLOCK_K chunks (fp32), writing an fp32 result that
the launcher copies into the output (in the input dtype).
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "no-op"

SABINE = 0.161  # s/m, at 20 C


@triton.jit
def sabine_kernel(s_ptr, a_ptr, v_ptr, out_ptr, R, K, s_sr, s_sk, s_ar, s_ak, s_v,
                  BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr):
    rooms = tl.program_id(0).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)
    rmask = rooms < R
    acc = tl.zeros([BLOCK_R, BLOCK_K], dtype=tl.float32)
    for start in range(0, K, BLOCK_K):
        k = start + tl.arange(0, BLOCK_K).to(tl.int64)
        mask = rmask[:, None] & (k < K)[None, :]
        area = tl.load(s_ptr + rooms[:, None] * s_sr + k[None, :] * s_sk, mask=mask, other=0.0).to(tl.float32)
        alpha = tl.load(a_ptr + rooms[:, None] * s_ar + k[None, :] * s_ak, mask=mask, other=0.0).to(tl.float32)
        acc += area * alpha
    absorption = tl.sum(acc, axis=1)
    vol = tl.load(v_ptr + rooms * s_v, mask=rmask, other=0.0).to(tl.float32)
    tl.store(out_ptr + rooms, SABINE * vol / absorption, mask=rmask)


def reverb_time(area, alpha, volume, BLOCK_R=8, BLOCK_K=32):
    R, K = area.shape
    out = torch.empty(R, dtype=area.dtype, device=area.device)
    if R == 0:
        return out
    rt = torch.empty(R, dtype=torch.float32, device=area.device)
    sabine_kernel[(triton.cdiv(R, BLOCK_R),)](area, alpha, volume, rt, R, K, area.stride(0), area.stride(1),
                                              alpha.stride(0), alpha.stride(1), volume.stride(0),
                                              BLOCK_R=BLOCK_R, BLOCK_K=BLOCK_K)
    return out


def reference(area, alpha, volume):
    return SABINE * volume / (area * alpha).sum(-1)


def surface_areas(ctx):
    R, K = ctx.dims["R"], ctx.dims["K"]
    return (1.0 + 40.0 * ctx.rand(R, K, dtype=torch.float32)).to(ctx.dtype)


def absorption_coefficients(ctx):
    R, K = ctx.dims["R"], ctx.dims["K"]
    return (0.02 + 0.9 * ctx.rand(R, K, dtype=torch.float32)).to(ctx.dtype)


def volumes(ctx):
    return (30.0 + 3000.0 * ctx.rand(ctx.dims["R"], dtype=torch.float32)).to(ctx.dtype)


spec = kcheck.Spec(
    name="hx35_sabine_reverb_time",
    kernel=reverb_time,
    reference=reference,
    inputs=[kcheck.Custom(surface_areas, name="area", dims=("R", "K")),
            kcheck.Custom(absorption_coefficients, name="alpha", dims=("R", "K")),
            kcheck.Custom(volumes, name="volume", dims=("R",))],
    dims={"R": kcheck.Dim(nominal=40), "K": kcheck.Dim(nominal=24, min=1, max=512)},
    reduce=["K"],
    configs=[{"BLOCK_R": 8, "BLOCK_K": 32}, {"BLOCK_R": 2, "BLOCK_K": 8}],
)
