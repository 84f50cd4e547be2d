"""Moving average along each row (a box filter, avg_pool1d with kernel 5, stride 1, padding 2 and the padding
counted), used to smooth per-token signals:

    out[i, j] = (x[i, j-2] + x[i, j-1] + x[i, j] + x[i, j+1] + x[i, j+2]) / 5,   x = 0 outside the row

Programs tile BLOCK_M rows x BLOCK_N columns and read the five shifted windows with masked loads."""

import torch
import triton
import triton.language as tl

import kcheck

WIDTH = 5


@triton.jit
def box_filter_kernel(x_ptr, out_ptr, M, N, stride_x, stride_o,
                      HALF: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rows = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)).to(tl.int64)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    row_mask = rows < M
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.static_range(-HALF, HALF + 1):
        c = cols + k
        m = row_mask[:, None] & ((c >= 0) & (c < N))[None, :]
        acc += tl.load(x_ptr + rows[:, None] * stride_x + c[None, :], mask=m, other=0.0).to(tl.float32)
    y = acc / (2 * HALF + 1)
    tl.store(out_ptr + rows[:, None] * stride_o + cols[None, :], y.to(out_ptr.dtype.element_ty),
             mask=row_mask[:, None] & (cols < N)[None, :])


def box_filter_rows(x, BLOCK_M=16, BLOCK_N=64):
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    x = x if x.stride(1) == 1 else x.contiguous()
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    box_filter_kernel[grid](x, out, M, N, x.stride(0), out.stride(0), HALF=WIDTH // 2,
                            BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(x):
    return torch.nn.functional.avg_pool1d(x[:, None, :], WIDTH, stride=1, padding=WIDTH // 2,
                                          count_include_pad=True)[:, 0, :]


spec = kcheck.Spec(
    name="hx7_box_filter_rows_ok",
    kernel=box_filter_rows,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=512)},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 64}, {"BLOCK_M": 4, "BLOCK_N": 256}],
    properties=[kcheck.props.linear()],
)

BUG_CLASS = None
