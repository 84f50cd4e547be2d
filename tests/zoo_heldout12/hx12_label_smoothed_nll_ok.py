import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None


@triton.jit
def ls_nll_kernel(lp_ptr, y_ptr, out_ptr, V, smoothing, stride_t, stride_v, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    lp_row = lp_ptr + row * stride_t
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, V, BLOCK):
        cols = start + tl.arange(0, BLOCK).to(tl.int64)
        acc += tl.load(lp_row + cols * stride_v, mask=cols < V, other=0.0).to(tl.float32)
    label = tl.load(y_ptr + row).to(tl.int64)
    picked = tl.load(lp_row + label * stride_v).to(tl.float32)
    loss = -(1.0 - smoothing) * picked - smoothing * (tl.sum(acc, axis=0) / V)
    tl.store(out_ptr + row, loss.to(out_ptr.dtype.element_ty))


def label_smoothed_nll(logp, labels, smoothing=0.0, BLOCK=512):
    T, V = logp.shape
    out = torch.empty((T,), dtype=logp.dtype, device=logp.device)
    if T:
        ls_nll_kernel[(T,)](logp, labels.contiguous(), out, V, smoothing, logp.stride(0), logp.stride(1),
                            BLOCK=BLOCK)
    return out


def reference(logp, labels, smoothing=0.0):
    picked = logp.gather(-1, labels[:, None]).squeeze(-1)
    return -(1.0 - smoothing) * picked - smoothing * logp.mean(-1)


spec = kcheck.Spec(
    name="hx12_label_smoothed_nll_ok",
    kernel=label_smoothed_nll,
    reference=reference,
    inputs=[kcheck.Tensor("T", "V", name="logp"), kcheck.Index("T", high="V", name="labels")],
    dims={"T": kcheck.Dim(nominal=64), "V": kcheck.Dim(nominal=1000)},
    params={"smoothing": [0.0, 0.1]},
    reduce=["V"],
    configs=[{"BLOCK": 512}, {"BLOCK": 64}],
)
