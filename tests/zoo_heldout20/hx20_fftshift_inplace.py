"""In-place fftshift along the last dimension of a batch of spectra: x[r, k] <- x[r, (k - N//2) mod N]
(torch.fft.fftshift(x, dim=-1)), written back into x.

The launcher keeps a copy of x as the source; grid (rows, column blocks), each program gathers its block's
shifted elements from the source and stores them into x. Any strides; returns x.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def fftshift_kernel(src_ptr, dst_ptr, N, shift, s_sm, s_sn, d_sm, d_sn, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    k = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = k < N
    j = (k + N - shift) % N
    v = tl.load(src_ptr + row * s_sm + j * s_sn, mask=mask)
    tl.store(dst_ptr + row * d_sm + k * d_sn, v, mask=mask)


def fftshift_(x: torch.Tensor, BLOCK: int = 256) -> torch.Tensor:
    M, N = x.shape
    if M == 0 or N == 0:
        return x
    src = x
    fftshift_kernel[(M, triton.cdiv(N, BLOCK))](src, x, N, N // 2, src.stride(0), src.stride(1), x.stride(0),
                                                x.stride(1), BLOCK=BLOCK)
    return x


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.fft.fftshift(x, dim=-1)


spec = kcheck.Spec(
    name="fftshift_inplace",
    kernel=fftshift_,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", mutated=True)],
    dims={"M": kcheck.Dim(nominal=16, max=32, real=()), "N": kcheck.Dim(nominal=1024, real=())},
    configs=[{"BLOCK": 256}, {"BLOCK": 64}],
)

BUG_CLASS = "race"
