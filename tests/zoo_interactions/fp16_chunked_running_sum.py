"""Bug class: low-precision accumulation that needs two factors at once (fp16 and a long reduction).

Row sums over N in chunks of 256: each chunk is summed in fp32, but the running total is stored back in the input's
dtype between chunks (``acc = (acc + part).to(x.dtype)``). In fp32 that is harmless. In fp16 the running total is
re-rounded to 11 bits once per chunk: at N = 1024 (four chunks) the error stays near the table's tolerance, but over
a long row (N = 16384: 64 roundings of a growing total) it is many times torch's own fp16 sum (which accumulates in
fp32). A matrix that runs fp16 only at the nominal and 129 shapes, and long rows only in fp32, passes it.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "low-precision-accumulation"
GPU_ONLY = False


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, N, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros((1,), dtype=x_ptr.dtype.element_ty)
    for start in range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride + offs, mask=offs < N, other=0.0).to(tl.float32)
        acc = (acc.to(tl.float32) + tl.sum(x, axis=0)).to(x_ptr.dtype.element_ty)  # BUG: re-rounded per chunk
    tl.store(out_ptr + row + tl.arange(0, 1), acc)


def row_sum(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty(M, dtype=x.dtype, device=x.device)
    if M:
        row_sum_kernel[(M,)](x, out, N, x.stride(0), BLOCK=256)
    return out


spec = kcheck.Spec(
    name="fp16_chunked_running_sum",
    kernel=row_sum,
    reference=lambda x: x.sum(dim=1),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=1024, real=(2880, 16384))},
    dtypes=["fp32", "fp16"],
    reduce=["N"],
)
