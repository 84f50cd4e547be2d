"""Apply a periodic Hann window to every analysis frame before an FFT (as torch.stft does with
torch.hann_window): y[m, n] = x[m, n] * w[n], w[n] = 0.5 - 0.5 cos(2 pi n / N) (w = [1] when N = 1).

frames is [M, N] (any strides). Each program windows BLOCK_M frames, walking them in BLOCK_N chunks; the window is
computed on the fly in fp32."""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-constant"


@triton.jit
def hann_kernel(x_ptr, y_ptr, M, N, two_pi_over_n, stride_xm, stride_xn, stride_ym, stride_yn,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]
        w = 0.54 - 0.46 * tl.cos(cols.to(tl.float32) * two_pi_over_n)
        w = tl.where(N == 1, 1.0, w)
        x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xn, mask=mask,
                    other=0.0).to(tl.float32)
        tl.store(y_ptr + rows[:, None] * stride_ym + cols[None, :] * stride_yn,
                 (x * w[None, :]).to(y_ptr.dtype.element_ty), mask=mask)


def hann_window_frames(x: torch.Tensor, BLOCK_M: int = 8, BLOCK_N: int = 256) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M and N:
        hann_kernel[(triton.cdiv(M, BLOCK_M),)](x, y, M, N, 2.0 * math.pi / N, x.stride(0), x.stride(1),
                                                y.stride(0), y.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return y


def reference(x: torch.Tensor) -> torch.Tensor:
    return x * torch.hann_window(x.shape[-1], periodic=True, dtype=x.dtype, device=x.device)


spec = kcheck.Spec(
    name="hx19_hann_window_frames",
    kernel=hann_window_frames,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="frames")],
    dims={"M": kcheck.Dim(nominal=40), "N": kcheck.Dim(nominal=400)},
    configs=[{"BLOCK_M": 8, "BLOCK_N": 256}, {"BLOCK_M": 2, "BLOCK_N": 64}],
)
