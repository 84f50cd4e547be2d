"""Power systems: active power injected at every bus of a network from its bus voltages,

    P_i = V_i * sum_j V_j * (G_ij * cos(theta_i - theta_j) + B_ij * sin(theta_i - theta_j)),

with G + jB the bus admittance matrix. The sum over j is split across programs: program (bi, bj) adds the
contribution of the bus block bj to the buses of block bi into an fp32 accumulator with tl.atomic_add (the sum
over a large network keeps every program busy), then the result is cast to the input dtype. Strides honoured."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "uninitialized-accumulator"


@triton.jit
def injection_kernel(v_ptr, th_ptr, g_ptr, b_ptr, p_ptr, N, s_v, s_th, s_gi, s_gj, s_bi, s_bj,
                     BLOCK_I: tl.constexpr, BLOCK_J: tl.constexpr):
    pid_i = tl.program_id(0).to(tl.int64)
    pid_j = tl.program_id(1).to(tl.int64)
    i = pid_i * BLOCK_I + tl.arange(0, BLOCK_I).to(tl.int64)
    j = pid_j * BLOCK_J + tl.arange(0, BLOCK_J).to(tl.int64)
    mi = i < N
    mj = j < N
    mask = mi[:, None] & mj[None, :]
    vi = tl.load(v_ptr + i * s_v, mask=mi, other=0.0).to(tl.float32)
    vj = tl.load(v_ptr + j * s_v, mask=mj, other=0.0).to(tl.float32)
    ti = tl.load(th_ptr + i * s_th, mask=mi, other=0.0).to(tl.float32)
    tj = tl.load(th_ptr + j * s_th, mask=mj, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + i[:, None] * s_gi + j[None, :] * s_gj, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + i[:, None] * s_bi + j[None, :] * s_bj, mask=mask, other=0.0).to(tl.float32)
    dth = ti[:, None] - tj[None, :]
    terms = vj[None, :] * (g * tl.cos(dth) + b * tl.sin(dth))
    part = vi * tl.sum(tl.where(mask, terms, 0.0), axis=1)
    tl.atomic_add(p_ptr + i, part, mask=mi)


def bus_power_injection(v: torch.Tensor, theta: torch.Tensor, g: torch.Tensor, b: torch.Tensor,
                        BLOCK_I: int = 16, BLOCK_J: int = 32) -> torch.Tensor:
    N = v.shape[0]
    p = torch.empty((N,), dtype=torch.float32, device=v.device)
    if N:
        grid = (triton.cdiv(N, BLOCK_I), triton.cdiv(N, BLOCK_J))
        injection_kernel[grid](v, theta, g, b, p, N, v.stride(0), theta.stride(0), g.stride(0), g.stride(1),
                               b.stride(0), b.stride(1), BLOCK_I=BLOCK_I, BLOCK_J=BLOCK_J)
    return p.to(v.dtype)


def reference(v: torch.Tensor, theta: torch.Tensor, g: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    dth = theta[:, None] - theta[None, :]
    return v * ((g * torch.cos(dth) + b * torch.sin(dth)) * v[None, :]).sum(-1)


spec = kcheck.Spec(
    name="hx36_bus_power_injection",
    kernel=bus_power_injection,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="v"), kcheck.Tensor("N", name="theta"), kcheck.Tensor("N", "N", name="g"),
            kcheck.Tensor("N", "N", name="b")],
    dims={"N": kcheck.Dim(nominal=118, max=2048)},
    reduce=["N"],
    configs=[{"BLOCK_I": 16, "BLOCK_J": 32}, {"BLOCK_I": 32, "BLOCK_J": 64}],
)
