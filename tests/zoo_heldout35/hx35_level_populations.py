"""Boltzmann populations of atomic/nuclear energy levels.

p[m, i] = g[i] * exp(-E[m, i] / kT) / Z[m],   Z[m] = sum_i g[i] * exp(-E[m, i] / kT)
for each state m of a plasma/nucleus ensemble (energies in units of kT given per case) and level i with
statistical weight g[i] = 2J + 1. Computed as a softmax of log(g) - E / kT with the row maximum subtracted, one
row per program (the whole level ladder fits one block), fp32 arithmetic.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "exp-overflow"


@triton.jit
def populations_kernel(e_ptr, g_ptr, out_ptr, L, inv_kt, s_em, s_el, s_g, s_om, s_ol, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    lv = tl.arange(0, BLOCK)
    mask = lv < L
    e = tl.load(e_ptr + row * s_em + lv * s_el, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + lv * s_g, mask=mask, other=1.0).to(tl.float32)
    logw = tl.where(mask, tl.log(g) - e * inv_kt, float("-inf"))
    top = tl.max(logw, axis=0)
    w = tl.exp(logw)
    z = tl.sum(w, axis=0)
    tl.store(out_ptr + row * s_om + lv * s_ol, (w / z).to(out_ptr.dtype.element_ty), mask=mask)


def populations(energy, weight, kT=1.0):
    M, L = energy.shape
    out = torch.empty_like(energy)
    if M == 0 or L == 0:
        return out
    block = triton.next_power_of_2(L)
    populations_kernel[(M,)](energy, weight, out, L, 1.0 / kT, energy.stride(0), energy.stride(1),
                             weight.stride(0), out.stride(0), out.stride(1), BLOCK=block)
    return out


def reference(energy, weight, kT=1.0):
    return torch.softmax(torch.log(weight) - energy / kT, dim=-1)


def statistical_weights(ctx):
    # g = 2J + 1 for J = 0, 1/2, 1, ... 7/2
    return (1 + ctx.randint(0, 8, (ctx.dims["L"],))).to(ctx.dtype)


spec = kcheck.Spec(
    name="hx35_level_populations",
    kernel=populations,
    reference=reference,
    inputs=[kcheck.Tensor("M", "L", name="energy"), kcheck.Custom(statistical_weights, name="g", dims=("L",))],
    params={"kT": [1.0, 0.25]},
    dims={"M": kcheck.Dim(nominal=48), "L": kcheck.Dim(nominal=200, max=4096)},
    reduce=["L"],
)
