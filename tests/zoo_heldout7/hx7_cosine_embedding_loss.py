"""Cosine embedding loss per pair, as torch.nn.functional.cosine_embedding_loss(reduction="none"):

    cos[i]  = <x1_i, x2_i> / (|x1_i| * |x2_i|)
    loss[i] = 1 - cos[i]                  if y[i] == 1
              max(0, cos[i] - margin)     if y[i] == -1

One program per pair; the dot product and both squared norms are accumulated together in fp32 over
BLOCK_D-wide chunks."""

import torch
import triton
import triton.language as tl

import kcheck

MARGIN = 0.2


@triton.jit
def cosine_embedding_kernel(x1_ptr, x2_ptr, y_ptr, out_ptr, D, stride_1, stride_2, margin,
                            BLOCK_D: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    dot = tl.zeros([BLOCK_D], dtype=tl.float32)
    n1 = tl.zeros([BLOCK_D], dtype=tl.float32)
    n2 = tl.zeros([BLOCK_D], dtype=tl.float32)
    for start in range(0, D, BLOCK_D):
        cols = start + tl.arange(0, BLOCK_D)
        mask = cols < D
        a = tl.load(x1_ptr + row * stride_1 + cols, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(x2_ptr + row * stride_2 + cols, mask=mask, other=0.0).to(tl.float32)
        dot += a * b
        n1 += a * a
        n2 += b * b
    cos = tl.sum(dot, axis=0) / tl.sqrt(tl.sum(n1, axis=0) * tl.sum(n2, axis=0))
    y = tl.load(y_ptr + row)
    h = cos - margin
    loss = tl.where(y > 0, 1.0 - cos, tl.where(h < 0.0, 0.0, h))  # NaN propagates, as clamp_min
    tl.store(out_ptr + row, loss.to(out_ptr.dtype.element_ty))


def cosine_embedding_loss(x1, x2, y, BLOCK_D=256):
    M, D = x1.shape
    out = torch.empty(M, dtype=x1.dtype, device=x1.device)
    if M == 0:
        return out
    x1 = x1 if x1.stride(1) == 1 else x1.contiguous()
    x2 = x2 if x2.stride(1) == 1 else x2.contiguous()
    cosine_embedding_kernel[(M,)](x1, x2, y, out, D, x1.stride(0), x2.stride(0), MARGIN,
                                  BLOCK_D=min(BLOCK_D, max(16, triton.next_power_of_2(D))))
    return out


def reference(x1, x2, y):
    return torch.nn.functional.cosine_embedding_loss(x1, x2, y, margin=MARGIN, reduction="none")


def _labels(ctx):
    return (ctx.randint(0, 2, (ctx.dims["M"],)) * 2 - 1).to(torch.int64)


spec = kcheck.Spec(
    name="hx7_cosine_embedding_loss",
    kernel=cosine_embedding_loss,
    reference=reference,
    inputs=[kcheck.Tensor("M", "D", name="x1"), kcheck.Tensor("M", "D", name="x2"),
            kcheck.Custom(_labels, name="y", dims=("M",))],
    dims={"M": kcheck.Dim(nominal=128), "D": kcheck.Dim(nominal=512)},
    reduce=["D"],
    configs=[{"BLOCK_D": 256}, {"BLOCK_D": 64}],
)

BUG_CLASS = "division-by-zero"
