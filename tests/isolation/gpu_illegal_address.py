"""On a GPU: a Triton kernel that stores 1 TB past its output at N = 33 (an illegal address: the CUDA context is
poisoned, every later CUDA call of the process would fail) and is a correct negation otherwise. Under isolation the
N = 33 case is reported crashed ("an illegal memory access was encountered") and every other case passes in a
fresh worker. Used by scripts/gpu_validate.sh (step isolation); on a CPU the interpreter's checks report the store.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def neg_kernel(x_ptr, out_ptr, n, far, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs + far, -tl.load(x_ptr + offs, mask=mask), mask=mask)


def neg(x: torch.Tensor, BLOCK: int = 128) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    if n:
        neg_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, (1 << 38) if n == 33 else 0, BLOCK=BLOCK)
    return out


spec = kcheck.Spec(name="gpu_illegal_address", kernel=neg, reference=torch.neg, inputs=[kcheck.Tensor("N")],
                   dims={"N": kcheck.Dim(nominal=1024, real=())}, dtypes=["fp32"])
