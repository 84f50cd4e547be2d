"""Dequantize an int8 weight with per-row scales and write it transposed: out[n, m] = q[m, n] * scale[m], the
[K, N] -> [N, K] layout change a GEMM wants for its B operand. 2-D tiles of BLOCK x BLOCK, int64 offsets."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def dequant_t_kernel(q_ptr, scale_ptr, out_ptr, M, N, stride_qm, stride_qn, BLOCK: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    cols = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    q = tl.load(q_ptr + rows[:, None] * stride_qm + cols[None, :] * stride_qn, mask=mask, other=0)
    s = tl.load(scale_ptr + rows, mask=rows < M, other=0.0).to(tl.float32)
    w = q.to(tl.float32) * s[:, None]
    tl.store(out_ptr + cols[None, :] * N + rows[:, None], w.to(out_ptr.dtype.element_ty), mask=mask)


def dequant_transpose(q, scale, BLOCK=32):
    M, N = q.shape
    out = torch.empty((N, M), dtype=scale.dtype, device=q.device)
    if M == 0 or N == 0:
        return out
    grid = (triton.cdiv(M, BLOCK), triton.cdiv(N, BLOCK))
    dequant_t_kernel[grid](q, scale, out, M, N, q.stride(0), q.stride(1), BLOCK=BLOCK)
    return out


def int8_weight(ctx: kcheck.CaseContext) -> torch.Tensor:
    return ctx.randint(-127, 128, (ctx.dims["M"], ctx.dims["N"]), dtype=torch.int8)


spec = kcheck.Spec(
    name="hx4_dequant_transpose",
    kernel=dequant_transpose,
    reference=lambda q, scale: (q.to(scale.dtype) * scale[:, None]).t(),
    inputs=[kcheck.Custom(int8_weight, name="q", dims=("M", "N")), kcheck.Tensor("M", name="scale")],
    dims={"M": kcheck.Dim(nominal=256), "N": kcheck.Dim(nominal=128)},
    configs=[{"BLOCK": 32}, {"BLOCK": 64}],
)

BUG_CLASS = "index-transposition"
