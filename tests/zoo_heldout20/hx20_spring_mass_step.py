"""One semi-implicit (symplectic) Euler step of a batch of damped spring-mass systems:

    a  = -(k * x + c * v) / m
    v' = v + dt * a
    x' = x + dt * v'

x and v are (M, N) (any strides); stiffness k, damping c and the time step are scalars, mass m is 1.
Each program handles a BLOCK_M x BLOCK_N tile; returns (x', v').
"""

import torch
import triton
import triton.language as tl

import kcheck

STIFFNESS = 4.0
DAMPING = 0.3
DT = 0.01


@triton.jit
def spring_mass_kernel(x_ptr, v_ptr, xo_ptr, vo_ptr, M, N, sxm, sxn, svm, svn, som, son, k, c, dt,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    x = tl.load(x_ptr + rows[:, None] * sxm + cols[None, :] * sxn, mask=mask, other=0.0).to(tl.float32)
    v = tl.load(v_ptr + rows[:, None] * svm + cols[None, :] * svn, mask=mask, other=0.0).to(tl.float32)
    a = -(k * x + c * v)
    v_new = v + dt * a
    x_new = x + dt * v_new
    out = rows[:, None] * som + cols[None, :] * son
    tl.store(xo_ptr + out, x_new.to(xo_ptr.dtype.element_ty), mask=mask)
    tl.store(vo_ptr + out, v_new.to(vo_ptr.dtype.element_ty), mask=mask)


def spring_mass_step(x: torch.Tensor, v: torch.Tensor, BLOCK_M: int = 16, BLOCK_N: int = 128):
    M, N = x.shape
    x_new = torch.empty((M, N), dtype=x.dtype, device=x.device)
    v_new = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M and N:
        grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
        spring_mass_kernel[grid](x, v, x_new, v_new, M, N, x.stride(0), x.stride(1), v.stride(0), v.stride(1),
                                 x_new.stride(0), x_new.stride(1), STIFFNESS, DAMPING, DT,
                                 BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return x_new, v_new


def reference(x: torch.Tensor, v: torch.Tensor):
    v_new = v + DT * (-(STIFFNESS * x + DAMPING * v))
    return x + DT * v_new, v_new


spec = kcheck.Spec(
    name="spring_mass_step",
    kernel=spring_mass_step,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("M", "N", name="v")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=256, real=())},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 128}, {"BLOCK_M": 4, "BLOCK_N": 32}],
    properties=[kcheck.props.linear()],
)

BUG_CLASS = "int32-overflow"
