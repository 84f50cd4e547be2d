"""Sinusoidal timestep embedding of diffusion models (DDPM / Stable Diffusion's get_timestep_embedding with
flip_sin_to_cos=True, downscale_freq_shift=0): with half = dim // 2 and freq_k = exp(-ln(10000) * k / half),

    emb[b, :half] = cos(t[b] * freq),   emb[b, half:] = sin(t[b] * freq).

Timesteps and the embedding are fp32 (the time MLP casts afterwards).

Grid: row blocks of BLOCK_B timesteps; each program computes its [BLOCK_B, half] angles once and writes the cos
and sin halves.
"""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "kernel-raises"

MAX_PERIOD = 10000.0


@triton.jit
def timestep_embedding_kernel(t_ptr, out_ptr, B, D, half, neg_log_period, stride_ob,
                              BLOCK_B: tl.constexpr, BLOCK_H: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_B + tl.arange(0, BLOCK_B)
    k = tl.arange(0, BLOCK_H)
    r_ok = rows < B
    k_ok = k < half
    t = tl.load(t_ptr + rows, mask=r_ok, other=0.0)
    freq = tl.exp(neg_log_period * k.to(tl.float32) / half)
    ang = t[:, None] * freq[None, :]
    mask = r_ok[:, None] & k_ok[None, :]
    base = out_ptr + rows[:, None] * stride_ob
    tl.store(base + k[None, :], tl.cos(ang), mask=mask)
    tl.store(base + half + k[None, :], tl.sin(ang), mask=mask)


def timestep_embedding(t: torch.Tensor, dim: int, out: torch.Tensor, BLOCK_B: int = 16) -> None:
    B = t.shape[0]
    assert dim % 2 == 0, f"timestep embedding dim must be even, got {dim}"
    half = dim // 2
    if B == 0 or dim == 0:
        return
    block_h = triton.next_power_of_2(max(half, 1))
    t = t.contiguous()
    timestep_embedding_kernel[(triton.cdiv(B, BLOCK_B),)](t, out, B, dim, half, -math.log(MAX_PERIOD),
                                                          out.stride(0), BLOCK_B=BLOCK_B, BLOCK_H=block_h)


def reference(t: torch.Tensor, dim: int) -> torch.Tensor:
    half = dim // 2
    freq = torch.exp(-math.log(MAX_PERIOD) * torch.arange(half, dtype=t.dtype, device=t.device) / half)
    ang = t[:, None] * freq[None, :]
    emb = torch.cat([torch.cos(ang), torch.sin(ang)], dim=-1)
    if dim % 2:
        emb = torch.nn.functional.pad(emb, (0, 1))
    return emb


def _timesteps(ctx: kcheck.CaseContext) -> torch.Tensor:
    """Timesteps of a 1000-step schedule, as a sampler passes them (fp32)."""
    return ctx.randint(0, 1000, (ctx.dims["B"],)).to(torch.float32)


spec = kcheck.Spec(
    name="hx14_timestep_embedding",
    kernel=timestep_embedding,
    reference=reference,
    inputs=[kcheck.Custom(_timesteps, name="t", dims=("B",)), kcheck.Scalar(lambda d: d["D"], name="dim")],
    outputs=[kcheck.Tensor("B", "D", dtype=torch.float32)],
    dims={"B": kcheck.Dim(nominal=64), "D": kcheck.Dim(nominal=320)},
    dtypes=["fp32"],
    configs=[{"BLOCK_B": 16}, {"BLOCK_B": 1}],
)
