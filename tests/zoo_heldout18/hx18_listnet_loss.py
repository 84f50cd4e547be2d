"""ListNet listwise ranking loss (Cao et al., 2007), per query: the cross-entropy between the top-one
distribution of the relevance labels and that of the model's scores,

    loss[q] = - sum_j softmax(labels[q])_j * log_softmax(scores[q])_j

scores, labels: (Q, L) (L candidate documents per query); output (Q,). One program per query, one pass over
the list in BLOCK_L chunks accumulating the two normalizers and the label-weighted scores in fp32. With
p = softmax(labels) and Z = sum exp(scores):

    loss = log Z - sum_j p_j scores_j
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def listnet_kernel(s_ptr, y_ptr, out_ptr, L, s_sq, s_sl, s_yq, s_yl, BLOCK_L: tl.constexpr):
    q = tl.program_id(0).to(tl.int64)
    s_row = s_ptr + q * s_sq
    y_row = y_ptr + q * s_yq
    cols = tl.arange(0, BLOCK_L)
    zs = tl.zeros((BLOCK_L,), dtype=tl.float32)
    zy = tl.zeros((BLOCK_L,), dtype=tl.float32)
    w = tl.zeros((BLOCK_L,), dtype=tl.float32)
    for start in range(0, L, BLOCK_L):
        c = start + cols
        s = tl.load(s_row + c * s_sl, mask=c < L, other=0.0).to(tl.float32)
        y = tl.load(y_row + c * s_yl, mask=c < L, other=0.0).to(tl.float32)
        es = tl.where(c < L, tl.exp(s), 0.0)
        ey = tl.where(c < L, tl.exp(y), 0.0)
        zs += es
        zy += ey
        w += tl.where(c < L, ey * s, 0.0)
    loss = tl.log(tl.sum(zs, axis=0)) - tl.sum(w, axis=0) / tl.sum(zy, axis=0)
    tl.store(out_ptr + q, loss.to(out_ptr.dtype.element_ty))


def listnet_loss(scores, labels, BLOCK_L=512):
    Q, L = scores.shape
    out = torch.empty((Q,), dtype=scores.dtype, device=scores.device)
    if Q == 0:
        return out
    listnet_kernel[(Q,)](scores, labels, out, L, scores.stride(0), scores.stride(1), labels.stride(0),
                         labels.stride(1), BLOCK_L=BLOCK_L)
    return out


def reference(scores, labels):
    return -(torch.softmax(labels, -1) * torch.log_softmax(scores, -1)).sum(-1)


BUG_CLASS = "exp-overflow"

spec = kcheck.Spec(
    name="hx18_listnet_loss",
    kernel=listnet_loss,
    reference=reference,
    inputs=[kcheck.Tensor("Q", "L", name="scores"), kcheck.Tensor("Q", "L", name="labels")],
    dims={"Q": kcheck.Dim(nominal=64), "L": kcheck.Dim(nominal=256, min=1)},
    reduce=["L"],
    configs=[{"BLOCK_L": 512}, {"BLOCK_L": 64}],
)
