import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "race"


@triton.jit
def roll_kernel(src_ptr, dst_ptr, N, stride_sm, stride_sn, stride_dm, stride_dn, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    chunks = tl.cdiv(N, BLOCK)
    row = pid // chunks
    cols = (pid % chunks) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = cols < N
    src_cols = tl.where(cols == 0, N - 1, cols - 1)
    v = tl.load(src_ptr + row * stride_sm + src_cols * stride_sn, mask=mask, other=0.0)
    tl.store(dst_ptr + row * stride_dm + cols * stride_dn, v, mask=mask)


def roll_rows_(x, BLOCK=64):
    M, N = x.shape
    if M and N:
        src = x
        roll_kernel[(M * triton.cdiv(N, BLOCK),)](src, x, N, src.stride(0), src.stride(1), x.stride(0), x.stride(1),
                                                  BLOCK=BLOCK)
    return x


spec = kcheck.Spec(
    name="hx12_roll_rows_inplace",
    kernel=roll_rows_,
    reference=lambda x: torch.roll(x, 1, dims=-1),
    inputs=[kcheck.Tensor("M", "N", mutated=True)],
    dims={"M": kcheck.Dim(nominal=32), "N": kcheck.Dim(nominal=256)},
    configs=[{"BLOCK": 64}, {"BLOCK": 256}],
)
