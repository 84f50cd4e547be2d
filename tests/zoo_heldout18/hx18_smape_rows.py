"""Symmetric mean absolute percentage error per series (forecast evaluation, M4 competition convention):
y, y_hat: (S, H), S series of H horizon steps,

    term[s, h] = 2 |y - y_hat| / (|y| + |y_hat|),  and 0 where y = y_hat = 0
    smape[s]   = mean over h of term[s, h]

Each term lies in [0, 2]. One program per series walks the horizon in BLOCK_H chunks, fp32 sum, output (S,) in
the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def smape_kernel(y_ptr, f_ptr, out_ptr, H, s_ys, s_yh, s_fs, s_fh, BLOCK_H: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_H)
    acc = tl.zeros((BLOCK_H,), dtype=tl.float32)
    for start in range(0, H, BLOCK_H):
        c = start + cols
        y = tl.load(y_ptr + row * s_ys + c * s_yh, mask=c < H, other=0.0).to(tl.float32)
        f = tl.load(f_ptr + row * s_fs + c * s_fh, mask=c < H, other=0.0).to(tl.float32)
        den = tl.abs(y) + tl.abs(f)
        term = 2.0 * tl.abs(y - f) / den
        acc += term
    tl.store(out_ptr + row, (tl.sum(acc, axis=0) / H).to(out_ptr.dtype.element_ty))


def smape(y, y_hat, BLOCK_H=128):
    S, H = y.shape
    out = torch.empty((S,), dtype=y.dtype, device=y.device)
    if S == 0:
        return out
    smape_kernel[(S,)](y, y_hat, out, H, y.stride(0), y.stride(1), y_hat.stride(0), y_hat.stride(1),
                       BLOCK_H=BLOCK_H)
    return out


def reference(y, y_hat):
    den = y.abs() + y_hat.abs()
    term = 2 * (y - y_hat).abs() / torch.where(den == 0, torch.ones_like(den), den)
    return term.mean(-1)


BUG_CLASS = "division-by-zero"

spec = kcheck.Spec(
    name="hx18_smape_rows",
    kernel=smape,
    reference=reference,
    inputs=[kcheck.Tensor("S", "H", name="y"), kcheck.Tensor("S", "H", name="y_hat")],
    dims={"S": kcheck.Dim(nominal=64), "H": kcheck.Dim(nominal=96, min=1)},
    reduce=["H"],
    configs=[{"BLOCK_H": 128}, {"BLOCK_H": 32}],
)
