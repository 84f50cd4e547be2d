"""First-order upwind scheme for 1-D linear advection (u_t + a u_x = 0, a > 0) on a batch of rows, several
explicit steps:

    u_new[i] = u[i] - c * (u[i] - u[i-1])  for i >= 1,     u_new[0] = u[0]  (fixed inflow value)

with Courant number c = a dt / dx in (0, 1]. Each step is one launch over BLOCK_M x BLOCK_N tiles reading the
current field (each cell and its upwind neighbour) and writing the next field to a separate buffer, so that no
program reads a cell another program is updating. The state is kept in fp32 between steps and cast back to the
input dtype at the end; strides honoured, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "race"

STEPS = 4


@triton.jit
def upwind_step_kernel(u_ptr, v_ptr, M, N, courant, s_um, s_un, s_vm, s_vn,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_n = tl.program_id(0).to(tl.int64)
    pid_m = tl.program_id(1).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    upwind = mask & (cols >= 1)[None, :]
    u = tl.load(u_ptr + rows[:, None] * s_um + cols[None, :] * s_un, mask=mask, other=0.0)
    ul = tl.load(u_ptr + rows[:, None] * s_um + (cols - 1)[None, :] * s_un, mask=upwind, other=0.0)
    v = tl.where(upwind, u - courant * (u - ul), u)
    tl.store(v_ptr + rows[:, None] * s_vm + cols[None, :] * s_vn, v, mask=mask)


def upwind_advection(u0: torch.Tensor, courant: float = 0.5, BLOCK_M: int = 8, BLOCK_N: int = 64) -> torch.Tensor:
    M, N = u0.shape
    cur = torch.empty((M, N), dtype=torch.float32, device=u0.device)
    cur.copy_(u0)
    if M == 0 or N == 0:
        return cur.to(u0.dtype)
    grid = (triton.cdiv(N, BLOCK_N), triton.cdiv(M, BLOCK_M))
    for _ in range(STEPS):
        nxt = cur
        upwind_step_kernel[grid](cur, nxt, M, N, courant, cur.stride(0), cur.stride(1), nxt.stride(0),
                                 nxt.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
        cur = nxt
    return cur.to(u0.dtype)


def reference(u0: torch.Tensor, courant: float = 0.5) -> torch.Tensor:
    u = u0.clone()
    for _ in range(STEPS):
        v = u.clone()
        v[:, 1:] = u[:, 1:] - courant * (u[:, 1:] - u[:, :-1])
        u = v
    return u


spec = kcheck.Spec(
    name="upwind_advection",
    kernel=upwind_advection,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="u0")],
    dims={"M": kcheck.Dim(nominal=24), "N": kcheck.Dim(nominal=400)},
    params={"courant": [0.5, 0.9]},
    configs=[{"BLOCK_M": 8, "BLOCK_N": 64}, {"BLOCK_M": 4, "BLOCK_N": 32}],
    properties=[kcheck.props.linear()],
)
