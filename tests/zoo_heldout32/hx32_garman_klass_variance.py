"""Garman-Klass range-based variance estimator per instrument (row) from N bars of log open, high, low and close
prices (Garman and Klass 1980):

    var = mean_t [ 0.5 (h_t - l_t)^2 - (2 ln 2 - 1) (c_t - o_t)^2 ]

One program per row loops over the bars in BLOCK_N-wide chunks with a per-lane fp32 running sum. Each of the four
price arrays is addressed through its own strides (they are often columns of one [N, 4] bar table, or slices of a
larger buffer), int64 row offsets; the variance is returned in the input dtype.
"""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "stride-assumption"

K_OC = 2.0 * math.log(2.0) - 1.0


@triton.jit
def garman_klass_kernel(o_ptr, h_ptr, l_ptr, c_ptr, out_ptr, N, k_oc, s_om, s_on, s_hm, s_hn, s_lm, s_ln, s_cm,
                        s_cn, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        t = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = t < N
        o = tl.load(o_ptr + row * s_om + t * s_on, mask=mask, other=0.0).to(tl.float32)
        h = tl.load(h_ptr + row * s_hm + t * s_hn, mask=mask, other=0.0).to(tl.float32)
        lo = tl.load(l_ptr + row * s_lm + t * s_ln, mask=mask, other=0.0).to(tl.float32)
        c = tl.load(c_ptr + row * s_cm + t * s_cn, mask=mask, other=0.0).to(tl.float32)
        hl = h - lo
        co = c - o
        acc += 0.5 * hl * hl - k_oc * co * co
    tl.store(out_ptr + row, (tl.sum(acc, axis=0) / N).to(out_ptr.dtype.element_ty))


def garman_klass(o: torch.Tensor, h: torch.Tensor, l: torch.Tensor, c: torch.Tensor,  # noqa: E741
                 BLOCK_N: int = 256) -> torch.Tensor:
    M, N = o.shape
    out = torch.empty((M,), dtype=o.dtype, device=o.device)
    if M == 0 or N == 0:
        return out.fill_(float("nan"))  # the mean over no bar
    garman_klass_kernel[(M,)](o, h, l, c, out, N, K_OC, o.stride(0), o.stride(1), N, 1,
                              l.stride(0), l.stride(1), c.stride(0), c.stride(1), BLOCK_N=BLOCK_N)
    return out


def reference(o: torch.Tensor, h: torch.Tensor, l: torch.Tensor, c: torch.Tensor) -> torch.Tensor:  # noqa: E741
    return (0.5 * (h - l) ** 2 - K_OC * (c - o) ** 2).mean(-1)


spec = kcheck.Spec(
    name="hx32_garman_klass_variance",
    kernel=garman_klass,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="open"), kcheck.Tensor("M", "N", name="high"),
            kcheck.Tensor("M", "N", name="low"), kcheck.Tensor("M", "N", name="close")],
    dims={"M": kcheck.Dim(nominal=40, real=()), "N": kcheck.Dim(nominal=390, real=(2880,))},
    reduce=["N"],
    configs=[{"BLOCK_N": 256}, {"BLOCK_N": 64}],
)
