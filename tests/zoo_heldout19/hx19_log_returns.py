"""Log returns of price series: r[m, t] = log(p[m, t + 1] / p[m, t]) for t < T - 1.

p is [M, T] (one asset per row, any strides), r is [M, T - 1]. The launch is one flat grid of BLOCK_M x BLOCK_T
tiles, rows outer, column tiles inner; the ratio and the log are taken in fp32. Prices are drawn as a geometric
random walk (positive, about 100, 5% daily volatility)."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "tail-tile-dropped"


@triton.jit
def log_returns_kernel(p_ptr, r_ptr, M, T, n_col_tiles, stride_pm, stride_pt, stride_rm, stride_rt,
                       BLOCK_M: tl.constexpr, BLOCK_T: tl.constexpr):
    pid = tl.program_id(0)
    pid_m = pid // n_col_tiles
    pid_t = pid % n_col_tiles
    rows = pid_m.to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = pid_t.to(tl.int64) * BLOCK_T + tl.arange(0, BLOCK_T).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < T - 1)[None, :]
    base = p_ptr + rows[:, None] * stride_pm
    p0 = tl.load(base + cols[None, :] * stride_pt, mask=mask, other=1.0).to(tl.float32)
    p1 = tl.load(base + (cols + 1)[None, :] * stride_pt, mask=mask, other=1.0).to(tl.float32)
    r = tl.log(p1 / p0)
    tl.store(r_ptr + rows[:, None] * stride_rm + cols[None, :] * stride_rt, r.to(r_ptr.dtype.element_ty), mask=mask)


def log_returns(p: torch.Tensor, BLOCK_M: int = 16, BLOCK_T: int = 64) -> torch.Tensor:
    M, T = p.shape
    r = torch.empty((M, max(T - 1, 0)), dtype=p.dtype, device=p.device)
    if M == 0 or T < 2:
        return r
    n_col_tiles = (T - 1) // BLOCK_T
    grid = (triton.cdiv(M, BLOCK_M) * n_col_tiles,)
    log_returns_kernel[grid](p, r, M, T, n_col_tiles, p.stride(0), p.stride(1), r.stride(0), r.stride(1),
                             BLOCK_M=BLOCK_M, BLOCK_T=BLOCK_T)
    return r


def prices(ctx: kcheck.CaseContext) -> torch.Tensor:
    M, T = ctx.dims["M"], ctx.dims["T"]
    steps = 0.05 * torch.randn((M, T), generator=ctx.generator, dtype=torch.float64)
    p = 100.0 * torch.exp(steps.cumsum(-1))
    if ctx.layout == "strided" and T:
        p = torch.cat([p, p[:, :3]], dim=1)[:, :T]  # padded rows
    return p.to(ctx.dtype).to(ctx.device)


def reference(p: torch.Tensor) -> torch.Tensor:
    return torch.log(p[:, 1:] / p[:, :-1])


spec = kcheck.Spec(
    name="hx19_log_returns",
    kernel=log_returns,
    reference=reference,
    inputs=[kcheck.Custom(prices, name="prices", dims=("M", "T"))],
    dims={"M": kcheck.Dim(nominal=48), "T": kcheck.Dim(nominal=253, min=2)},
    configs=[{"BLOCK_M": 16, "BLOCK_T": 64}, {"BLOCK_M": 4, "BLOCK_T": 128}],
)
