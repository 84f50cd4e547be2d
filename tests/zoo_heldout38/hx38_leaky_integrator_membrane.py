"""Leaky integrator membrane potential (neuroscience): N passive neurons driven by input currents I[t, n] over T
time steps (time-major, as a simulator records them), forward Euler with step dt / tau = alpha:

    v[t, n] = v[t-1, n] + alpha * (I[t, n] - v[t-1, n]),      v[-1, n] = 0

A sequential scan along time: each program owns BLOCK_N neurons and steps through t, keeping the membrane state in
fp32 registers; every v[t] is stored in the input dtype. alpha is a compile-time constant of the launch. int64
offsets, any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "low-precision-accumulation"


@triton.jit
def leaky_integrator_kernel(i_ptr, v_ptr, T, N, stride_it, stride_in, stride_vt, stride_vn,
                            ALPHA: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    mask = cols < N
    i_ptrs = i_ptr + cols * stride_in
    v_ptrs = v_ptr + cols * stride_vn
    v = tl.zeros([BLOCK_N], dtype=v_ptr.dtype.element_ty)
    for _ in range(0, T):
        cur = tl.load(i_ptrs, mask=mask, other=0.0)
        v = v + ALPHA * (cur - v)
        tl.store(v_ptrs, v.to(v_ptr.dtype.element_ty), mask=mask)
        i_ptrs += stride_it  # pointer arithmetic: 64-bit, however far t * stride reaches
        v_ptrs += stride_vt


def leaky_integrator(current: torch.Tensor, alpha: float = 0.005, BLOCK_N: int = 64) -> torch.Tensor:
    T, N = current.shape
    v = torch.empty((T, N), dtype=current.dtype, device=current.device)
    if T == 0 or N == 0:
        return v
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    leaky_integrator_kernel[(triton.cdiv(N, block_n),)](current, v, T, N, current.stride(0), current.stride(1),
                                                        v.stride(0), v.stride(1), ALPHA=alpha, BLOCK_N=block_n)
    return v


def reference(current: torch.Tensor, alpha: float = 0.005) -> torch.Tensor:
    # the recurrence in float64 whatever the input dtype, rounded once to it at the end
    x = current.to(torch.float64)
    out = torch.empty_like(x)
    v = torch.zeros_like(x[0]) if x.shape[0] else None
    for t in range(x.shape[0]):
        v = v + alpha * (x[t] - v)
        out[t] = v
    return out.to(current.dtype)


spec = kcheck.Spec(
    name="hx38_leaky_integrator_membrane",
    kernel=leaky_integrator,
    reference=reference,
    inputs=[kcheck.Tensor("T", "N", name="current")],
    dims={"T": kcheck.Dim(nominal=1024), "N": kcheck.Dim(nominal=64)},
    dtypes=["fp32", "fp16"],
    params={"alpha": [0.005, 0.05]},
    configs=[{"BLOCK_N": 64}, {"BLOCK_N": 16}],
    properties=[kcheck.props.linear(0)],
)
