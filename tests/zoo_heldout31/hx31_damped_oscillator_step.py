"""One semi-implicit (symplectic) Euler step of N independent damped harmonic oscillators. The state is packed as
rows (position, velocity); with stiffness k, damping c and time step dt:
v' = v + dt * (-k x - c v),   x' = x + dt * v'.
Each program takes BLOCK rows of the [N, 2] state, computes in fp32 and writes the new [BLOCK, 2] state; int64 row
offsets, strides honoured."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "no-op"


@triton.jit
def oscillator_kernel(s_ptr, out_ptr, N, k, c, dt, s_sn, s_sc, s_on, s_oc, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    row_mask = rows < N
    x = tl.load(s_ptr + rows * s_sn, mask=row_mask, other=0.0).to(tl.float32)
    v = tl.load(s_ptr + rows * s_sn + s_sc, mask=row_mask, other=0.0).to(tl.float32)
    v_new = v + dt * (-k * x - c * v)
    x_new = x + dt * v_new
    comp = tl.arange(0, 2)
    state = tl.where((comp == 0)[None, :], x_new[:, None], v_new[:, None])
    mask = row_mask[:, None] & (comp < 2)[None, :]


def oscillator_step(state: torch.Tensor, k: float, c: float, dt: float, BLOCK: int = 256) -> torch.Tensor:
    N = state.shape[0]
    out = torch.empty((N, 2), dtype=state.dtype, device=state.device)
    if N == 0:
        return out
    oscillator_kernel[(triton.cdiv(N, BLOCK),)](state, out, N, k, c, dt, state.stride(0), state.stride(1),
                                               out.stride(0), out.stride(1), BLOCK=BLOCK)
    return out


def reference(state: torch.Tensor, k: float, c: float, dt: float) -> torch.Tensor:
    x, v = state[:, 0], state[:, 1]
    v_new = v + dt * (-k * x - c * v)
    x_new = x + dt * v_new
    return torch.stack((x_new, v_new), dim=-1)


spec = kcheck.Spec(
    name="hx31_damped_oscillator_step",
    kernel=oscillator_step,
    reference=reference,
    inputs=[kcheck.Tensor("N", 2, name="state"), kcheck.Scalar(4.0, name="k"), kcheck.Scalar(0.3, name="c"),
            kcheck.Scalar(0.01, name="dt")],
    dims={"N": kcheck.Dim(nominal=3000)},
    configs=[{"BLOCK": 256}, {"BLOCK": 64}],
    properties=[kcheck.props.linear(0)],
)
