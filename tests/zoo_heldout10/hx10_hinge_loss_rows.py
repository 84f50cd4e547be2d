"""Per-row hinge loss: loss[m] = mean_n max(0, 1 - y[m, n] * x[m, n]) with labels y in {-1, +1}.

One program per BLOCK_M rows; the row is read in BLOCK_N-wide chunks, each chunk's hinge terms are summed in fp32
and added to a running per-row total held in the output dtype, divided by N at the end; the result is returned in
the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def hinge_kernel(x_ptr, y_ptr, out_ptr, M, N, sxm, sxn, sym, syn,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < M
    total = tl.zeros([BLOCK_M], dtype=out_ptr.dtype.element_ty)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]
        x = tl.load(x_ptr + rows[:, None] * sxm + cols[None, :] * sxn, mask=mask, other=0.0).to(tl.float32)
        y = tl.load(y_ptr + rows[:, None] * sym + cols[None, :] * syn, mask=mask, other=0.0).to(tl.float32)
        h = tl.maximum(1.0 - y * x, 0.0, propagate_nan=tl.PropagateNan.ALL)
        total += tl.sum(tl.where(mask, h, 0.0), axis=1).to(out_ptr.dtype.element_ty)
    loss = total.to(tl.float32) / N
    tl.store(out_ptr + rows, loss.to(out_ptr.dtype.element_ty), mask=row_mask)


def hinge_rows(x: torch.Tensor, y: torch.Tensor, BLOCK_N: int = 128) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty(M, dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    block_m = max(1, min(2048 // block_n, triton.next_power_of_2(M), 16))
    hinge_kernel[(triton.cdiv(M, block_m),)](x, y, out, M, N, x.stride(0), x.stride(1), y.stride(0), y.stride(1),
                                            BLOCK_M=block_m, BLOCK_N=block_n)
    return out


def labels(ctx: kcheck.CaseContext) -> torch.Tensor:
    M, N = ctx.dims["M"], ctx.dims["N"]
    return (ctx.randint(0, 2, (M, N)) * 2 - 1).to(ctx.dtype)


spec = kcheck.Spec(
    name="hx10_hinge_loss_rows",
    kernel=hinge_rows,
    reference=lambda x, y: torch.clamp(1.0 - y * x, min=0.0).mean(-1),
    inputs=[kcheck.Tensor("M", "N"), kcheck.Custom(labels, name="labels", dims=("M", "N"))],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=4096, min=1)},
    reduce=["N"],
    configs=[{"BLOCK_N": 128}, {"BLOCK_N": 512}],
)

BUG_CLASS = "low-precision-accumulation"
