"""Per-channel gain in decibels for multichannel audio, trainable (a learned mixing-console fader per channel).

    a[c] = 10^(gain_db[c] / 20);   y[t, c] = x[t, c] * a[c]
    dx = dy * a;   dgain_db[c] = ln(10) / 20 * sum_t dy[t, c] * y[t, c]

x is [T, C] (frames x channels). Both kernels tile [BLOCK_T, BLOCK_C] on a 1-D grid of tiles; the backward adds
each tile's partial channel sums of dy * x into an fp32 buffer with atomics; the sum is scaled by a * ln(10) / 20
once it is complete (an infinite gain then gives +-inf, as the reference does, not inf - inf from two tiles).
"""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "uninitialized-accumulator"

DB_TO_LOG2 = math.log2(10.0) / 20.0
DB_TO_LN = math.log(10.0) / 20.0


@triton.jit
def gain_fwd_kernel(x_ptr, g_ptr, y_ptr, T, C, sxt, sxc, syt, syc, n_tiles_c, db_to_log2,
                    BLOCK_T: tl.constexpr, BLOCK_C: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = (pid // n_tiles_c) * BLOCK_T + tl.arange(0, BLOCK_T).to(tl.int64)
    cols = (pid % n_tiles_c) * BLOCK_C + tl.arange(0, BLOCK_C).to(tl.int64)
    cmask = cols < C
    mask = (rows < T)[:, None] & cmask[None, :]
    amp = tl.exp2(tl.load(g_ptr + cols, mask=cmask, other=0.0).to(tl.float32) * db_to_log2)
    x = tl.load(x_ptr + rows[:, None] * sxt + cols[None, :] * sxc, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + rows[:, None] * syt + cols[None, :] * syc, (x * amp[None, :]).to(y_ptr.dtype.element_ty),
             mask=mask)


@triton.jit
def gain_bwd_kernel(dy_ptr, x_ptr, g_ptr, dx_ptr, dsum_ptr, T, C, sdt, sdc, sxt, sxc, sgt, sgc, n_tiles_c,
                    db_to_log2, BLOCK_T: tl.constexpr, BLOCK_C: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = (pid // n_tiles_c) * BLOCK_T + tl.arange(0, BLOCK_T).to(tl.int64)
    cols = (pid % n_tiles_c) * BLOCK_C + tl.arange(0, BLOCK_C).to(tl.int64)
    cmask = cols < C
    mask = (rows < T)[:, None] & cmask[None, :]
    amp = tl.exp2(tl.load(g_ptr + cols, mask=cmask, other=0.0).to(tl.float32) * db_to_log2)
    dy = tl.load(dy_ptr + rows[:, None] * sdt + cols[None, :] * sdc, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + rows[:, None] * sxt + cols[None, :] * sxc, mask=mask, other=0.0).to(tl.float32)
    tl.store(dx_ptr + rows[:, None] * sgt + cols[None, :] * sgc, (dy * amp[None, :]).to(dx_ptr.dtype.element_ty),
             mask=mask)
    tl.atomic_add(dsum_ptr + cols, tl.sum(dy * x, axis=0), mask=cmask)


def _grid(T, C, BLOCK_T, BLOCK_C):
    n_tiles_c = triton.cdiv(C, BLOCK_C)
    return (triton.cdiv(T, BLOCK_T) * n_tiles_c,), n_tiles_c


class ChannelGainDb(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, gain_db, BLOCK_T, BLOCK_C):
        T, C = x.shape
        y = torch.empty((T, C), dtype=x.dtype, device=x.device)
        ctx.save_for_backward(x, gain_db)
        ctx.blocks = (BLOCK_T, BLOCK_C)
        if T and C:
            grid, n_tiles_c = _grid(T, C, BLOCK_T, BLOCK_C)
            gain_fwd_kernel[grid](x, gain_db, y, T, C, x.stride(0), x.stride(1), y.stride(0), y.stride(1),
                                  n_tiles_c, DB_TO_LOG2, BLOCK_T=BLOCK_T, BLOCK_C=BLOCK_C)
        return y

    @staticmethod
    def backward(ctx, dy):
        x, gain_db = ctx.saved_tensors
        BLOCK_T, BLOCK_C = ctx.blocks
        T, C = x.shape
        dx = torch.empty((T, C), dtype=x.dtype, device=x.device)
        dsum = torch.empty((C,), dtype=torch.float32, device=x.device)
        if T and C:
            grid, n_tiles_c = _grid(T, C, BLOCK_T, BLOCK_C)
            gain_bwd_kernel[grid](dy, x, gain_db, dx, dsum, T, C, dy.stride(0), dy.stride(1), x.stride(0),
                                  x.stride(1), dx.stride(0), dx.stride(1), n_tiles_c, DB_TO_LOG2,
                                  BLOCK_T=BLOCK_T, BLOCK_C=BLOCK_C)
        dg = dsum * torch.exp2(gain_db.float() * DB_TO_LOG2) * DB_TO_LN
        return dx, dg.to(gain_db.dtype), None, None


def channel_gain_db(x, gain_db, BLOCK_T=32, BLOCK_C=32):
    return ChannelGainDb.apply(x, gain_db, BLOCK_T, BLOCK_C)


def reference(x, gain_db):
    return x * torch.pow(10.0, gain_db / 20.0)


spec = kcheck.Spec(
    name="hx22_channel_gain_db_train",
    kernel=channel_gain_db,
    reference=reference,
    inputs=[kcheck.Tensor("T", "C", name="x"), kcheck.Tensor("C", name="gain_db")],
    dims={"T": kcheck.Dim(nominal=256, real=(4800,)), "C": kcheck.Dim(nominal=8, max=64, real=())},
    configs=[{"BLOCK_T": 32, "BLOCK_C": 32}, {"BLOCK_T": 128, "BLOCK_C": 4}],
    grad=True,
)
