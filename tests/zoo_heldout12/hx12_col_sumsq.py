import triton
import triton.language as tl

import kcheck

BUG_CLASS = "uninitialized-accumulator"


@triton.jit
def col_sumsq_kernel(x_ptr, out_ptr, M, N, stride_m, stride_n, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    tiles_n = tl.cdiv(N, BN)
    rows = (pid // tiles_n) * BM + tl.arange(0, BM).to(tl.int64)
    cols = (pid % tiles_n) * BN + tl.arange(0, BN).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    x = tl.load(x_ptr + rows[:, None] * stride_m + cols[None, :] * stride_n, mask=mask, other=0.0).to(tl.float32)
    part = tl.sum(x * x, axis=0)
    tl.atomic_add(out_ptr + cols, part, mask=cols < N)


def col_sumsq(x, out, BM=32, BN=64):
    M, N = x.shape
    if M and N:
        grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
        col_sumsq_kernel[grid](x, out, M, N, x.stride(0), x.stride(1), BM=BM, BN=BN)


spec = kcheck.Spec(
    name="hx12_col_sumsq",
    kernel=col_sumsq,
    reference=lambda x: (x * x).sum(0),
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("N")],
    dims={"M": kcheck.Dim(nominal=256), "N": kcheck.Dim(nominal=256)},
    dtypes=["fp32"],
    reduce=["M"],
    configs=[{"BM": 32, "BN": 64}, {"BM": 64, "BN": 16}],
)
