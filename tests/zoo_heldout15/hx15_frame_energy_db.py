"""Frame energy in decibels, the loudness feature of a speech front end (voice activity detection, AGC):

    db[m] = 10 * log10(mean_n x[m, n]^2 + 1e-10)

Row blocks: each program takes BLOCK_M frames and walks their samples in BLOCK_N-wide chunks, folding each chunk's
sum of squares into one running total per frame. Returned in the input's dtype. Row offsets are int64.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "low-precision-accumulation"

FLOOR = 1e-10


@triton.jit
def frame_energy_kernel(x_ptr, out_ptr, M, N, s_xm, s_xn, FLOOR: tl.constexpr,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_ok = rows < M
    total = tl.zeros([BLOCK_M], dtype=x_ptr.dtype.element_ty)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_ok[:, None] & (cols < N)[None, :]
        x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0)
        total += tl.sum(x * x, axis=1)
    power = total.to(tl.float32) / N
    db = (10.0 * 0.30102999566398120) * tl.log2(power + FLOOR)
    tl.store(out_ptr + rows, db.to(out_ptr.dtype.element_ty), mask=row_ok)


def frame_energy_db(x, BLOCK_M=4, BLOCK_N=256):
    M, N = x.shape
    out = torch.empty((M,), dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    frame_energy_kernel[(triton.cdiv(M, BLOCK_M),)](x, out, M, N, x.stride(0), x.stride(1), FLOOR=FLOOR,
                                                    BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(x):
    return 10.0 * torch.log10(x.pow(2).mean(-1) + FLOOR)


spec = kcheck.Spec(
    name="hx15_frame_energy_db",
    kernel=frame_energy_db,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="frames")],
    dims={"M": kcheck.Dim(nominal=32), "N": kcheck.Dim(nominal=4096, min=1, real=(400, 16000))},
    reduce=["N"],
    configs=[{"BLOCK_M": 4, "BLOCK_N": 256}, {"BLOCK_M": 1, "BLOCK_N": 1024}],
)
