"""Log-sum-exp pooling over the sequence (a smooth maximum, Pinheiro & Collobert 2015) of a (B, T, D) feature
map, with sharpness r:

    out[b, d] = (1 / r) * log( (1 / T) * sum_t exp(r * x[b, t, d]) )

It tends to the max over t as r grows and to the mean as r -> 0. Each program owns one batch entry and BLOCK_D
channels and walks t in BLOCK_T steps with an online (running-max rescaled) sum in fp32, so a large r * x never
overflows. Output (B, D) in the input dtype.
"""

import math

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def lse_pool_kernel(x_ptr, out_ptr, T, D, r, log_t, s_b, s_t, s_d, s_ob, s_od,
                    BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    d = tl.program_id(1).to(tl.int64) * BLOCK_D + tl.arange(0, BLOCK_D).to(tl.int64)
    rt = tl.arange(0, BLOCK_T).to(tl.int64)
    run_max = tl.full((BLOCK_D,), float("-inf"), tl.float32)
    run_sum = tl.zeros((BLOCK_D,), dtype=tl.float32)
    for start in range(0, T, BLOCK_T):
        t = start + rt
        mask = (t[:, None] < T) & (d[None, :] < D)
        z = tl.load(x_ptr + b * s_b + t[:, None] * s_t + d[None, :] * s_d, mask=mask, other=float("-inf"))
        z = z.to(tl.float32) * r
        new_max = tl.maximum(run_max, tl.max(z, axis=0))
        safe = tl.where(tl.abs(new_max) == float("inf"), 0.0, new_max)
        run_sum = run_sum * tl.exp(run_max - safe) + tl.sum(tl.exp(z - safe[None, :]), axis=0)
        run_max = new_max
    out = (run_max + tl.log(run_sum) - log_t) / r
    tl.store(out_ptr + b * s_ob + d * s_od, out.to(out_ptr.dtype.element_ty), mask=d < D)


def lse_pool(x, r=4.0, BLOCK_T=32, BLOCK_D=64):
    B, T, D = x.shape
    out = torch.empty((B, D), dtype=x.dtype, device=x.device)
    if B == 0 or D == 0:
        return out
    grid = (B, triton.cdiv(D, BLOCK_D))
    lse_pool_kernel[grid](x, out, T, D, r, math.log(T) if T else 0.0, x.stride(0), x.stride(1), x.stride(2),
                          out.stride(0), out.stride(1), BLOCK_T=BLOCK_T, BLOCK_D=BLOCK_D)
    return out


def reference(x, r=4.0):
    T = x.shape[1]
    return (torch.logsumexp(r * x, dim=1) - math.log(T)) / r


BUG_CLASS = None

spec = kcheck.Spec(
    name="hx18_lse_pool_ok",
    kernel=lse_pool,
    reference=reference,
    inputs=[kcheck.Tensor("B", "T", "D")],
    dims={"B": kcheck.Dim(nominal=4, max=8, real=()), "T": kcheck.Dim(nominal=100, min=1),
          "D": kcheck.Dim(nominal=96)},
    params={"r": [4.0, 0.5]},
    reduce=["T"],
    configs=[{"BLOCK_T": 32, "BLOCK_D": 64}, {"BLOCK_T": 8, "BLOCK_D": 32}],
)
