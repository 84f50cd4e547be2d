"""A Triton kernel that crashes Triton's interpreter at N = 17 and N = 33 and never finishes at N = 63.

At N = 17 and 33 the store lands terabytes past the output (an unmasked, wildly wrong offset: the interpreter writes
host memory directly, and the process dies with SIGSEGV); at N = 63 a data-dependent loop never ends. Every other
size is a correct negation. kcheck's isolation must report exactly those three cases and judge the rest as if the
three were not there.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def neg_kernel(x_ptr, out_ptr, n, far, spin, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    i = 0
    while i < spin:  # spin = 1 << 62 at N = 63: never ends
        i += 0 * i + 1
    tl.store(out_ptr + offs + far, -x, mask=mask)


def neg(x: torch.Tensor, BLOCK: int = 64) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    far = 1 << 40 if n in (17, 33) else 0
    spin = 1 << 62 if n == 63 else 0
    if n:
        neg_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, far, spin, BLOCK=BLOCK)
    return out


spec = kcheck.Spec(name="crash_and_hang", kernel=neg, reference=torch.neg, inputs=[kcheck.Tensor("N")],
                   dims={"N": kcheck.Dim(nominal=256, real=())}, dtypes=["fp32"])
