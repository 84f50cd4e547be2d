"""Macaulay duration of bonds under continuous compounding. Bond m pays cash flow cf[m, n] at time
t_n = (n + 1) / freq years and is priced at yield y[m]:

    D = sum_n t_n * cf[m, n] * exp(-y[m] * t_n) / sum_n cf[m, n] * exp(-y[m] * t_n)

One program per bond walks its cash flows in BLOCK_N chunks (fp32 sums), int64 row offsets."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "tail-tile-dropped"


@triton.jit
def duration_kernel(cf_ptr, y_ptr, out_ptr, N, stride_cm, stride_cn, inv_freq, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    y = tl.load(y_ptr + row).to(tl.float32)
    pv_t = tl.zeros([BLOCK_N], dtype=tl.float32)
    pv = tl.zeros([BLOCK_N], dtype=tl.float32)
    for k in range(0, N // BLOCK_N):
        cols = k * BLOCK_N + tl.arange(0, BLOCK_N)
        mask = cols < N
        cf = tl.load(cf_ptr + row * stride_cm + cols * stride_cn, mask=mask, other=0.0).to(tl.float32)
        t = (cols + 1).to(tl.float32) * inv_freq
        v = cf * tl.exp(-y * t)
        pv += v
        pv_t += v * t
    d = tl.sum(pv_t, axis=0) / tl.sum(pv, axis=0)
    tl.store(out_ptr + row, d.to(out_ptr.dtype.element_ty))


def macaulay_duration(cf: torch.Tensor, y: torch.Tensor, freq: int = 2, BLOCK_N: int = 128) -> torch.Tensor:
    M, N = cf.shape
    out = torch.empty((M,), dtype=cf.dtype, device=cf.device)
    if M == 0:
        return out
    y = y.contiguous()
    duration_kernel[(M,)](cf, y, out, N, cf.stride(0), cf.stride(1), 1.0 / freq, BLOCK_N=BLOCK_N)
    return out


def reference(cf: torch.Tensor, y: torch.Tensor, freq: int = 2) -> torch.Tensor:
    t = torch.arange(1, cf.shape[-1] + 1, dtype=cf.dtype) / freq
    v = cf * torch.exp(-y[:, None] * t)
    return (v * t).sum(-1) / v.sum(-1)


def cash_flows(ctx: kcheck.CaseContext) -> torch.Tensor:
    """Coupon-like positive flows: 0.05 to 1.05 per period."""
    M, N = ctx.dims["M"], ctx.dims["N"]
    return (ctx.rand(M, N, dtype=torch.float32) + 0.05).to(ctx.dtype)


def yields(ctx: kcheck.CaseContext) -> torch.Tensor:
    """Continuously compounded yields between 0% and 8%."""
    return (ctx.rand(ctx.dims["M"], dtype=torch.float32) * 0.08).to(ctx.dtype)


spec = kcheck.Spec(
    name="hx30_macaulay_duration",
    kernel=macaulay_duration,
    reference=reference,
    inputs=[kcheck.Custom(cash_flows, name="cash_flows", dims=("M", "N")),
            kcheck.Custom(yields, name="yields", dims=("M",))],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=360, real=())},
    reduce=["N"],
    configs=[{"BLOCK_N": 128}, {"BLOCK_N": 64}],
    params={"freq": [2, 12]},
)
