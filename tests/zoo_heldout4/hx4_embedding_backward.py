"""Embedding backward: dtable[v, :] = sum of dout[t, :] over the tokens t with ids[t] == v (index_add), the
gradient table returned in fp32. One program per token and BLOCK_D slice; rows that share an id meet through
atomic adds."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def embedding_bwd_kernel(ids_ptr, dout_ptr, dtable_ptr, D, stride_ot, stride_od, stride_tv,
                         BLOCK_D: tl.constexpr):
    t = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    mask = cols < D
    row = tl.load(ids_ptr + t)
    g = tl.load(dout_ptr + t * stride_ot + cols * stride_od, mask=mask, other=0.0).to(tl.float32)
    tl.atomic_add(dtable_ptr + row * stride_tv + cols, g, mask=mask)


def embedding_backward(ids, dout, num_embeddings, BLOCK_D=128):
    T, D = dout.shape
    dtable = torch.empty((num_embeddings, D), dtype=torch.float32, device=dout.device)
    if T == 0 or D == 0:
        return dtable
    grid = (T, triton.cdiv(D, BLOCK_D))
    embedding_bwd_kernel[grid](ids, dout, dtable, D, dout.stride(0), dout.stride(1), dtable.stride(0),
                               BLOCK_D=BLOCK_D)
    return dtable


def reference(ids, dout, num_embeddings):
    out = torch.zeros((num_embeddings, dout.shape[1]), dtype=torch.float64, device=dout.device)
    return out.index_add_(0, ids, dout.to(torch.float64))


spec = kcheck.Spec(
    name="hx4_embedding_backward",
    kernel=embedding_backward,
    reference=reference,
    inputs=[kcheck.Index("T", high="V", name="ids"), kcheck.Tensor("T", "D", name="dout"),
            kcheck.Scalar(lambda dims: dims["V"])],
    dims={"T": kcheck.Dim(nominal=256), "V": kcheck.Dim(nominal=64), "D": kcheck.Dim(nominal=128)},
    output_shapes=[("V", "D")],
    output_dtypes=[torch.float32],
    configs=[{"BLOCK_D": 128}, {"BLOCK_D": 32}],
)

BUG_CLASS = "uninitialized-accumulator"
