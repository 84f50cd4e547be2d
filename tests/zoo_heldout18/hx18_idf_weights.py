"""Smoothed inverse document frequency of a document-term matrix (scikit-learn's TfidfTransformer,
smooth_idf=True): X: (D, V) term weights of D documents over a vocabulary of V terms,

    df[v]  = number of documents d with X[d, v] > 0
    idf[v] = log((1 + D) / (1 + df[v])) + 1

Pass 1 tiles X in BLOCK_D x BLOCK_V blocks over a 2-D grid; each program counts the positive entries of its
tile per column into an int32 df buffer. Pass 2 turns df into idf, in fp32, written in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def doc_freq_kernel(x_ptr, df_ptr, D, V, s_d, s_v, BLOCK_D: tl.constexpr, BLOCK_V: tl.constexpr):
    rd = tl.program_id(0).to(tl.int64) * BLOCK_D + tl.arange(0, BLOCK_D).to(tl.int64)
    rv = tl.program_id(1).to(tl.int64) * BLOCK_V + tl.arange(0, BLOCK_V).to(tl.int64)
    mask = (rd[:, None] < D) & (rv[None, :] < V)
    x = tl.load(x_ptr + rd[:, None] * s_d + rv[None, :] * s_v, mask=mask, other=0.0)
    cnt = tl.sum((x > 0).to(tl.int32), axis=0)
    tl.store(df_ptr + rv, cnt, mask=rv < V)


@triton.jit
def idf_kernel(df_ptr, out_ptr, V, n_docs_plus_one, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    df = tl.load(df_ptr + offs, mask=offs < V, other=0).to(tl.float32)
    idf = tl.log(n_docs_plus_one / (1.0 + df)) + 1.0
    tl.store(out_ptr + offs, idf.to(out_ptr.dtype.element_ty), mask=offs < V)


def idf_weights(x, BLOCK_D=32, BLOCK_V=64):
    D, V = x.shape
    out = torch.empty((V,), dtype=x.dtype, device=x.device)
    if V == 0:
        return out
    df = torch.zeros((V,), dtype=torch.int32, device=x.device)
    if D:
        doc_freq_kernel[(triton.cdiv(D, BLOCK_D), triton.cdiv(V, BLOCK_V))](x, df, D, V, x.stride(0), x.stride(1),
                                                                          BLOCK_D=BLOCK_D, BLOCK_V=BLOCK_V)
    idf_kernel[(triton.cdiv(V, 1024),)](df, out, V, float(D + 1), BLOCK=1024)
    return out


def reference(x):
    D = x.shape[0]
    df = (x > 0).sum(0).to(torch.float64)
    return torch.log((1 + D) / (1 + df)) + 1


BUG_CLASS = "missing-atomic"

spec = kcheck.Spec(
    name="hx18_idf_weights",
    kernel=idf_weights,
    reference=reference,
    inputs=[kcheck.Tensor("D", "V")],
    dims={"D": kcheck.Dim(nominal=256), "V": kcheck.Dim(nominal=128)},
    configs=[{"BLOCK_D": 32, "BLOCK_V": 64}, {"BLOCK_D": 128, "BLOCK_V": 32}],
)
