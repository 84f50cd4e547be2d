"""Exponential moving average along the sequence, per row: y[m, 0] = (1 - a) x[m, 0],
y[m, t] = a * y[m, t - 1] + (1 - a) * x[m, t] (an EMA feature / a diagonal linear recurrence with a fixed decay).

One program per row walks the sequence in BLOCK_T-wide chunks: inside a chunk the recurrence is an associative scan
over (decay, value) pairs, and the chunk's last state is carried into the next chunk. fp32 state; int64 row offsets.

Planted bug (tail-tile-dropped): the chunk loop runs T // BLOCK_T times, so the positions past the last full chunk
are never written.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def _linrec(a1, b1, a2, b2):
    return a1 * a2, a2 * b1 + b2


@triton.jit
def ema_scan_kernel(x_ptr, y_ptr, T, sxm, sxt, sym, syt, decay, BLOCK_T: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * sxm
    y_row = y_ptr + row * sym
    carry = tl.zeros([1], dtype=tl.float32)
    for c in range(0, T // BLOCK_T):
        t = c * BLOCK_T + tl.arange(0, BLOCK_T)
        mask = t < T
        x = tl.load(x_row + t * sxt, mask=mask, other=0.0).to(tl.float32)
        a = tl.where(mask, decay, 1.0)
        b = (1.0 - decay) * x
        acc_a, acc_b = tl.associative_scan((a, b), 0, _linrec)
        y = acc_a * carry + acc_b
        tl.store(y_row + t * syt, y.to(y_ptr.dtype.element_ty), mask=mask)
        carry = tl.sum(tl.where(t == c * BLOCK_T + BLOCK_T - 1, y, 0.0), axis=0, keep_dims=True)


def ema_scan(x, decay=0.9, BLOCK_T=128):
    M, T = x.shape
    y = torch.empty_like(x)
    if M == 0 or T == 0:
        return y
    ema_scan_kernel[(M,)](x, y, T, x.stride(0), x.stride(1), y.stride(0), y.stride(1), decay, BLOCK_T=BLOCK_T)
    return y


def reference(x, decay=0.9):
    y = torch.empty_like(x)
    state = torch.zeros_like(x[:, :1])
    for t in range(x.shape[1]):
        state = decay * state + (1.0 - decay) * x[:, t:t + 1]
        y[:, t:t + 1] = state
    return y


spec = kcheck.Spec(
    name="hx11_ema_scan",
    kernel=ema_scan,
    reference=reference,
    inputs=[kcheck.Tensor("M", "T")],
    dims={"M": kcheck.Dim(nominal=32), "T": kcheck.Dim(nominal=300, real=(37, 2880))},
    params={"decay": [0.9, 0.99]},
    reduce=["T"],
    configs=[{"BLOCK_T": 128}, {"BLOCK_T": 32}],
)

BUG_CLASS = "tail-tile-dropped"  # chunk loop bound T // BLOCK_T
