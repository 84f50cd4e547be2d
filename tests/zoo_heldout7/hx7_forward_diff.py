"""First forward difference of a 1-D signal (e.g. deltas of a cumulative counter or of token positions),
np.diff with the last value appended, so the length is kept:

    out[i] = x[i + 1] - x[i]   for i < n - 1,      out[n - 1] = 0

computed in place (the signal buffer is overwritten by its differences, saving a second buffer). Each program
handles BLOCK consecutive elements and reads one element past its block."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def forward_diff_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    has_next = offs + 1 < n
    cur = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    nxt = tl.load(x_ptr + offs + 1, mask=has_next, other=0.0).to(tl.float32)
    d = tl.where(has_next, nxt, cur) - cur
    tl.store(out_ptr + offs, d.to(out_ptr.dtype.element_ty), mask=mask)


def forward_diff_(x, BLOCK=1024):
    n = x.numel()
    if n == 0:
        return x
    buf = x if x.is_contiguous() else x.contiguous()
    forward_diff_kernel[(triton.cdiv(n, BLOCK),)](buf, buf, n, BLOCK=BLOCK)
    if buf is not x:
        x.copy_(buf)
    return x


def reference(x):
    return torch.diff(x, append=x[-1:])


spec = kcheck.Spec(
    name="hx7_forward_diff",
    kernel=forward_diff_,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="x", mutated=True)],
    dims={"N": kcheck.Dim(nominal=4096)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
    properties=[kcheck.props.linear()],
)

BUG_CLASS = "race"
