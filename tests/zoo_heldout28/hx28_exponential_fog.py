"""Squared-exponential distance fog (OpenGL's GL_EXP2 fog) applied to shaded pixels:

    f = exp(-(density * depth)^2),    out = f * color + (1 - f) * fog_color

color is [P, 3] (linear RGB per pixel), depth [P] (view-space distance), fog_color [3]. Each program handles
BLOCK_P pixels, all three channels as a [BLOCK_P, 4] tile (the fourth column masked); fp32 arithmetic, strides
honoured, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "no-op"


@triton.jit
def fog_kernel(c_ptr, d_ptr, fog_ptr, out_ptr, P, density, s_cp, s_cc, s_d, s_f, s_op, s_oc,
               BLOCK_P: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    p = pid * BLOCK_P + tl.arange(0, BLOCK_P).to(tl.int64)
    ch = tl.arange(0, 4).to(tl.int64)
    pm = p < P
    cm = ch < 3
    mask = pm[:, None] & cm[None, :]
    color = tl.load(c_ptr + p[:, None] * s_cp + ch[None, :] * s_cc, mask=mask, other=0.0).to(tl.float32)
    depth = tl.load(d_ptr + p * s_d, mask=pm, other=0.0).to(tl.float32)
    fog = tl.load(fog_ptr + ch * s_f, mask=cm, other=0.0).to(tl.float32)
    t = density * depth
    f = tl.exp(-(t * t))[:, None]
    out = f * color + (1.0 - f) * fog[None, :]


def exponential_fog(color: torch.Tensor, depth: torch.Tensor, fog_color: torch.Tensor, density: float = 0.05,
                    BLOCK_P: int = 256) -> torch.Tensor:
    P = color.shape[0]
    out = torch.empty((P, 3), dtype=color.dtype, device=color.device)
    if P:
        fog_kernel[(triton.cdiv(P, BLOCK_P),)](color, depth, fog_color, out, P, density, color.stride(0),
                                               color.stride(1), depth.stride(0), fog_color.stride(0),
                                               out.stride(0), out.stride(1), BLOCK_P=BLOCK_P)
    return out


def reference(color: torch.Tensor, depth: torch.Tensor, fog_color: torch.Tensor,
              density: float = 0.05) -> torch.Tensor:
    f = torch.exp(-(density * depth) ** 2)[:, None]
    return f * color + (1.0 - f) * fog_color[None, :]


spec = kcheck.Spec(
    name="exponential_fog",
    kernel=exponential_fog,
    reference=reference,
    inputs=[kcheck.Tensor("P", 3, name="color"), kcheck.Tensor("P", name="depth"),
            kcheck.Tensor(3, pattern="randn", name="fog_color")],
    dims={"P": kcheck.Dim(nominal=2000)},
    params={"density": [0.05, 0.8]},
    configs=[{"BLOCK_P": 256}, {"BLOCK_P": 32}],
)
