"""One stochastic gradient Langevin dynamics step (Welling & Teh, 2011), in place on the parameters:

    theta <- theta - lr * grad + sqrt(2 * lr) * noise

theta, grad, noise: (N,) flat parameter, gradient and standard-normal noise buffers. The update is done in fp32:
the launcher takes an fp32 view of theta (theta itself when it is fp32, an fp32 copy otherwise), the kernel
updates it, and theta is returned.
"""

import math

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def sgld_kernel(p_ptr, g_ptr, z_ptr, n, lr, noise_scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    z = tl.load(z_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(p_ptr + offs, p - lr * g + noise_scale * z, mask=mask)


def sgld_step(theta, grad, noise, lr=1e-2, BLOCK=1024):
    n = theta.numel()
    if n == 0:
        return theta
    p = theta.float()
    sgld_kernel[(triton.cdiv(n, BLOCK),)](p, grad.contiguous(), noise.contiguous(), n, lr, math.sqrt(2.0 * lr),
                                          BLOCK=BLOCK)
    return theta


def reference(theta, grad, noise, lr=1e-2):
    return theta - lr * grad + math.sqrt(2 * lr) * noise


BUG_CLASS = "no-op"

spec = kcheck.Spec(
    name="hx18_langevin_step_inplace",
    kernel=sgld_step,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="theta", mutated=True), kcheck.Tensor("N", name="grad"),
            kcheck.Tensor("N", name="noise", pattern="randn")],
    dims={"N": kcheck.Dim(nominal=4096)},
    params={"lr": [1e-2, 1e-4]},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)
