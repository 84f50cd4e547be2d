"""Annualized tracking error of portfolios against a benchmark (finance): per row (one portfolio's return
series), the sample standard deviation of the active return d = r_p - r_b, times sqrt(periods per year).

One program per row, a single pass over BLOCK_T-wide chunks: the sums of d - d[0] and of its square are
accumulated in fp32 (shifted by the first active return so a large common offset does not cancel), then
var = (S2 - S1^2 / T) / (T - 1).
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = 'cancellation'


@triton.jit
def tracking_error_kernel(p_ptr, b_ptr, out_ptr, T, periods, s_pm, s_pt, s_bm, s_bt, BLOCK_T: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    p_row = p_ptr + row * s_pm
    b_row = b_ptr + row * s_bm
    shift = 0.0
    s1 = tl.zeros([BLOCK_T], dtype=tl.float32)
    s2 = tl.zeros([BLOCK_T], dtype=tl.float32)
    for start in range(0, T, BLOCK_T):
        t = start + tl.arange(0, BLOCK_T).to(tl.int64)
        mask = t < T
        p = tl.load(p_row + t * s_pt, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_row + t * s_bt, mask=mask, other=0.0).to(tl.float32)
        d = tl.where(mask, (p - b) - shift, 0.0)
        s1 += d
        s2 += d * d
    S1 = tl.sum(s1, axis=0)
    S2 = tl.sum(s2, axis=0)
    var = (S2 - S1 * S1 / T) / (T - 1)
    var = tl.where(var < 0.0, 0.0, var)
    tl.store(out_ptr + row, tl.sqrt(var * periods).to(out_ptr.dtype.element_ty))


def tracking_error(port: torch.Tensor, bench: torch.Tensor, periods: float = 252.0,
                   BLOCK_T: int = 256) -> torch.Tensor:
    M, T = port.shape
    out = torch.empty((M,), dtype=port.dtype, device=port.device)
    if M:
        tracking_error_kernel[(M,)](port, bench, out, T, periods, port.stride(0), port.stride(1), bench.stride(0),
                                    bench.stride(1), BLOCK_T=BLOCK_T)
    return out


def reference(port: torch.Tensor, bench: torch.Tensor, periods: float = 252.0) -> torch.Tensor:
    return ((port - bench).var(-1, unbiased=True) * periods).sqrt()


spec = kcheck.Spec(
    name="hx27_tracking_error_rows",
    kernel=tracking_error,
    reference=reference,
    inputs=[kcheck.Tensor("M", "T", name="portfolio"), kcheck.Tensor("M", "T", pattern="randn", name="benchmark"),
            kcheck.Scalar(252.0, name="periods")],
    dims={"M": kcheck.Dim(nominal=16, real=()), "T": kcheck.Dim(nominal=750, min=2, real=())},
    reduce=["T"],
    configs=[{"BLOCK_T": 256}, {"BLOCK_T": 64}],
)
