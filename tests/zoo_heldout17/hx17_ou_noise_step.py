"""One Euler-Maruyama step of Ornstein-Uhlenbeck exploration noise (DDPG-style continuous-control RL).

x_next = x + theta * (mu - x) * dt + sigma * sqrt(dt) * noise, with mu = 0 and standard-normal noise drawn by the
caller; theta, sigma and dt are modes. Elementwise over [envs, action_dim]; one program per BLOCK elements.
"""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "no-op"


@triton.jit
def ou_step_kernel(x_ptr, noise_ptr, out_ptr, n, theta_dt, sigma_sqrt_dt, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    eps = tl.load(noise_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    x_next = x - theta_dt * x + sigma_sqrt_dt * eps
    tl.store(out_ptr + offs, x_next.to(out_ptr.dtype.element_ty), mask=mask)


def ou_noise_step(x, noise, theta=0.15, sigma=0.2, dt=0.01, BLOCK=512):
    state = x.contiguous()
    eps = noise.contiguous()
    x_next = torch.empty_like(state)
    n = state.numel()
    if n:
        ou_step_kernel[(triton.cdiv(n, BLOCK),)](state, eps, x_next, n, theta * dt, sigma * math.sqrt(dt),
                                                 BLOCK=BLOCK)
    return state


def reference(x, noise, theta=0.15, sigma=0.2, dt=0.01):
    return x + theta * (0.0 - x) * dt + sigma * math.sqrt(dt) * noise


spec = kcheck.Spec(
    name="hx17_ou_noise_step",
    kernel=ou_noise_step,
    reference=reference,
    inputs=[kcheck.Tensor("E", "A", name="x"), kcheck.Tensor("E", "A", name="noise")],
    dims={"E": kcheck.Dim(nominal=64), "A": kcheck.Dim(nominal=32)},
    params={"theta": [0.15, 1.0], "sigma": [0.2]},
    configs=[{"BLOCK": 512}, {"BLOCK": 128}],
)
