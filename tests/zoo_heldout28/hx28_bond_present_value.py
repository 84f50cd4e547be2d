"""Present value of a batch of fixed-income cash-flow schedules under continuous compounding:

    PV[i] = sum_j cf[i, j] * exp(-y[i] * t_j),    t_j = (j + 1) / freq years

cf[i, j] is the j-th scheduled payment of instrument i (coupons and principal, `freq` payments a year), y[i] its
yield. One program per BLOCK_M instruments loops over the schedule in BLOCK_N-wide chunks (the launcher passes the
number of chunks), accumulating in fp32; strides honoured, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "tail-tile-dropped"


@triton.jit
def present_value_kernel(cf_ptr, y_ptr, pv_ptr, M, N, n_chunks, inv_freq, s_cm, s_cn, s_y, s_pv,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    y = tl.load(y_ptr + rows * s_y, mask=row_mask, other=0.0).to(tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for c in range(0, n_chunks):
        cols = c * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]
        cf = tl.load(cf_ptr + rows[:, None] * s_cm + cols[None, :] * s_cn, mask=mask, other=0.0).to(tl.float32)
        t = (cols + 1).to(tl.float32) * inv_freq
        acc += cf * tl.exp(-y[:, None] * t[None, :])
    pv = tl.sum(acc, axis=1)
    tl.store(pv_ptr + rows * s_pv, pv.to(pv_ptr.dtype.element_ty), mask=row_mask)


def present_value(cf: torch.Tensor, y: torch.Tensor, freq: int = 2, BLOCK_N: int = 64) -> torch.Tensor:
    M, N = cf.shape
    pv = torch.empty((M,), dtype=cf.dtype, device=cf.device)
    if M == 0:
        return pv
    block_m = 16
    n_chunks = N // BLOCK_N
    present_value_kernel[(triton.cdiv(M, block_m),)](
        cf, y, pv, M, N, n_chunks, 1.0 / freq, cf.stride(0), cf.stride(1), y.stride(0), pv.stride(0),
        BLOCK_M=block_m, BLOCK_N=BLOCK_N)
    return pv


def reference(cf: torch.Tensor, y: torch.Tensor, freq: int = 2) -> torch.Tensor:
    t = torch.arange(1, cf.shape[1] + 1, dtype=torch.float64, device=cf.device) / freq
    return (cf * torch.exp(-y[:, None] * t[None, :])).sum(-1)


def yields(ctx: kcheck.CaseContext) -> torch.Tensor:
    """Annual yields between 0 % and 10 %."""
    return (ctx.rand(ctx.dims["M"], dtype=torch.float32) * 0.1).to(ctx.dtype)


spec = kcheck.Spec(
    name="bond_present_value",
    kernel=present_value,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="cash_flows"), kcheck.Custom(yields, name="yields", dims=("M",))],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=120, max=4096)},
    reduce=["N"],
    params={"freq": [2, 12]},
    configs=[{"BLOCK_N": 64}, {"BLOCK_N": 16}],
    properties=[kcheck.props.linear(0)],
)
