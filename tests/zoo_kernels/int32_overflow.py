"""Bug class: int32 index overflow.

The vector add of ``examples/vector_add.py`` without the int64 cast of the program id: ``pid * BLOCK`` is computed in
int32 and wraps past 2**31, so the programs beyond the 2**31-th element address memory before the tensors. Every
size a test suite usually tries is right; only kcheck's large case (2**31 + 1 elements, on a GPU with the memory
for it) reaches the overflow: there the kernel faults (an illegal address, reported as an error) or writes the
wrong elements. The same source with ``.to(tl.int64)`` passes.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def add_kernel_i32(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)  # BUG: int32; pid * BLOCK overflows past 2**31 elements
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    if n:
        add_kernel_i32[(triton.cdiv(n, BLOCK),)](x, y, out, n, BLOCK=BLOCK)
    return out


spec = kcheck.Spec(
    name="int32_overflow",
    kernel=add,
    reference=torch.add,
    inputs=[kcheck.Tensor("N"), kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=4096)},
    dtypes=["fp32"],
)

BUG_CLASS = "int32-overflow"
