"""Intrinsic (continuous) population growth rate from per-generation net growth (ecology).

r[m, n] = log(1 + R[m, n]) / tau[m]
with R = N_{t+1} / N_t - 1 the net growth fraction of population n of species m over one generation and tau[m]
the species' generation time. log(1 + R) is evaluated accurately for small R by Goldberg's correction
u = 1 + R, log(u) * R / (u - 1) (exact R where u rounds to 1, no correction where 1 + R is exact), since growth fractions are usually a few percent.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "cancellation"


@triton.jit
def growth_rate_kernel(r_ptr, tau_ptr, out_ptr, N, s_rm, s_rn, s_t, s_om, s_on, BLOCK: tl.constexpr):
    sp = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < N
    tau = tl.load(tau_ptr + sp * s_t).to(tl.float32)
    x = tl.load(r_ptr + sp * s_rm + cols * s_rn, mask=mask, other=0.0).to(tl.float32)
    u = 1.0 + x
    d = u - 1.0
    log1p = tl.log(u)
    tl.store(out_ptr + sp * s_om + cols * s_on, (log1p / tau).to(out_ptr.dtype.element_ty), mask=mask)


def growth_rate(net_growth, generation_time, BLOCK=256):
    M, N = net_growth.shape
    out = torch.empty_like(net_growth)
    if M == 0 or N == 0:
        return out
    growth_rate_kernel[(M, triton.cdiv(N, BLOCK))](net_growth, generation_time, out, N, net_growth.stride(0),
                                                   net_growth.stride(1), generation_time.stride(0), out.stride(0),
                                                   out.stride(1), BLOCK=BLOCK)
    return out


def reference(net_growth, generation_time):
    return torch.log1p(net_growth) / generation_time[:, None]


def generation_time(ctx):
    # generation times from 0.5 to 20 years
    return (0.5 + 19.5 * ctx.rand(ctx.dims["M"], dtype=torch.float32)).to(ctx.dtype)


spec = kcheck.Spec(
    name="hx35_intrinsic_growth_rate",
    kernel=growth_rate,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="net_growth"), kcheck.Custom(generation_time, name="tau", dims=("M",))],
    dims={"M": kcheck.Dim(nominal=10), "N": kcheck.Dim(nominal=1000)},
    configs=[{"BLOCK": 256}, {"BLOCK": 64}],
)
