"""Bug class: off-by-one mask (``offs <= n`` instead of ``offs < n``).

The vector add of ``examples/vector_add.py`` with the tail mask one element too wide: the program that holds the
tail loads x[n] and y[n] and stores out[n], one element past the end of all three tensors. Every value the output
holds is right, so no comparison can see it; on a GPU the extra store lands in the caching allocator's rounding
padding (harmless, this time), in the next tensor of its block (silent corruption), or past a mapping (a fault).
A casual test misses it twice over: with n a multiple of BLOCK (4096 = 4 x 1024) lane n belongs to a program past
the grid, which never runs, so nothing is touched; and where n is ragged the values are still right. kcheck's
interpreter checks every access against the launch's tensors and names the load and the store past the end.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs <= n  # BUG: should be offs < n (lets through one element past the end)
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n:
        add_kernel[(triton.cdiv(n, BLOCK),)](x, y, out, n, BLOCK=BLOCK)
    return out


spec = kcheck.Spec(
    name="off_by_one_mask",
    kernel=add,
    reference=torch.add,
    inputs=[kcheck.Tensor("N"), kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=4096)},
    dtypes=["fp32"],
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

BUG_CLASS = "off-by-one-mask"
