"""CSR sparse matrix times a dense vector, y[i] = sum over row i's nonzeros of values[p] * x[indices[p]].

The matrix is held in four-array CSR (row_start / row_end, as MKL's pointerB / pointerE): one program per row loops
over the row's nonzeros in BLOCK-wide chunks and accumulates in fp32. Rows have 0 to 40 nonzeros (empty rows
included); the structure is a deterministic function of the row count so the Custom inputs agree.

Planted bug (edge-guard): the load of the row's values has no mask: the last chunk of a row reads values past the
row's end (the next rows' values, or past the end of the array on the last rows), multiplied by x = 0 there; garbage
that is NaN or Inf poisons the row, and the read is out of bounds.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def csr_spmv_kernel(start_ptr, end_ptr, indices_ptr, values_ptr, x_ptr, y_ptr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    start = tl.load(start_ptr + row)
    end = tl.load(end_ptr + row)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for p in range(start, end, BLOCK):
        offs = p + tl.arange(0, BLOCK)
        m = offs < end
        cols = tl.load(indices_ptr + offs, mask=m, other=0)
        v = tl.load(values_ptr + offs)
        xv = tl.load(x_ptr + cols, mask=m, other=0.0)
        acc += v.to(tl.float32) * xv.to(tl.float32)
    tl.store(y_ptr + row, tl.sum(acc, axis=0).to(y_ptr.dtype.element_ty))


def csr_spmv(row_start, row_end, indices, values, x, BLOCK=32):
    M = row_start.numel()
    y = torch.empty(M, dtype=values.dtype, device=values.device)
    if M:
        csr_spmv_kernel[(M,)](row_start, row_end, indices, values, x, y, BLOCK=BLOCK)
    return y


def _row_nnz(M):
    return (torch.arange(M, dtype=torch.int64) * 13 + 5) % 41


def _starts(M):
    nnz = _row_nnz(M)
    return torch.cumsum(nnz, 0) - nnz


def make_start(ctx):
    return _starts(ctx.dims["M"]).to(ctx.device)


def make_end(ctx):
    return torch.cumsum(_row_nnz(ctx.dims["M"]), 0).to(ctx.device)


def make_indices(ctx):
    nnz = int(_row_nnz(ctx.dims["M"]).sum())
    return ctx.randint(0, max(ctx.dims["K"], 1), (nnz,))


def make_values(ctx):
    nnz = int(_row_nnz(ctx.dims["M"]).sum())
    return ctx.randn(nnz)


def reference(row_start, row_end, indices, values, x):
    M = row_start.numel()
    rows = torch.repeat_interleave(torch.arange(M, device=values.device), row_end - row_start)
    y = torch.zeros(M, dtype=values.dtype, device=values.device)
    if indices.numel():
        y.index_add_(0, rows, values * x[indices])
    return y


spec = kcheck.Spec(
    name="hx11_csr_spmv",
    kernel=csr_spmv,
    reference=reference,
    inputs=[kcheck.Custom(make_start, name="row_start", dims=("M",)),
            kcheck.Custom(make_end, name="row_end", dims=("M",)),
            kcheck.Custom(make_indices, name="indices"),
            kcheck.Custom(make_values, name="values"),
            kcheck.Tensor("K", name="x")],
    dims={"M": kcheck.Dim(nominal=96), "K": kcheck.Dim(nominal=200, min=1)},
    output_shapes=[("M",)],
    configs=[{"BLOCK": 32}, {"BLOCK": 16}],
)

BUG_CLASS = "edge-guard"  # values load without its bounds mask
