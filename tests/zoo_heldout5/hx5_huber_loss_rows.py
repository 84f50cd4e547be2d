"""Per-row Huber loss: out[m] = mean_n huber(x[m, n] - y[m, n]) with huber(d) = d^2 / 2 for |d| < delta, else
delta (|d| - delta / 2).

Several rows per program when rows are short, BLOCK_N-wide chunks otherwise; the sum is kept per lane in fp32 and
reduced once at the end; the loss comes back in the input dtype. int64 row offsets, any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def huber_rows_kernel(x_ptr, y_ptr, out_ptr, M, N, delta, stride_xm, stride_xn, stride_ym, stride_yn,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]
        x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xn, mask=mask, other=0.0)
        y = tl.load(y_ptr + rows[:, None] * stride_ym + cols[None, :] * stride_yn, mask=mask, other=0.0)
        d = x.to(tl.float32) - y.to(tl.float32)
        ad = tl.abs(d)
        loss = tl.where(ad < delta, 0.5 * d * d, delta * (ad - 0.5 * delta))
        acc += tl.where(mask, loss, 0.0)
    total = tl.sum(acc, axis=1) / N
    tl.store(out_ptr + rows, total.to(out_ptr.dtype.element_ty), mask=row_mask)


def huber_rows(x: torch.Tensor, y: torch.Tensor, delta: float = 1.0, BLOCK_N: int = 512,
               TILE: int = 4096) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty(M, dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    if N == 0:
        return out.fill_(float("nan"))  # the mean of nothing
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    huber_rows_kernel[(triton.cdiv(M, block_m),)](x, y, out, M, N, float(delta), x.stride(0), x.stride(1),
                                                 y.stride(0), y.stride(1), BLOCK_M=block_m, BLOCK_N=block_n)
    return out


def reference(x: torch.Tensor, y: torch.Tensor, delta: float = 1.0) -> torch.Tensor:
    return torch.nn.functional.huber_loss(x, y, reduction="none", delta=delta).mean(dim=-1)


spec = kcheck.Spec(
    name="hx5_huber_loss_rows",
    kernel=huber_rows,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=512)},
    reduce=["N"],
    params={"delta": [1.0, 0.25]},
    configs=[{"BLOCK_N": 512}, {"BLOCK_N": 64}],
)

BUG_CLASS = None
