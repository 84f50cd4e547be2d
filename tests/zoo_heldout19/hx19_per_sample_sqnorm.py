"""Per-sample squared gradient norms (the first step of per-example clipping in DP-SGD): for per-sample gradients
g of shape [B, M, N], out[b] = sum over m, n of g[b, m, n]^2, accumulated and returned in fp32.

Each sample's M*N elements are split into chunks of CHUNK; one program sums one chunk of one sample (BLOCK lanes at
a time, strides honoured, int64 offsets) and adds its partial sum into out[b] atomically (out starts at zero)."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "missing-atomic"


@triton.jit
def sqnorm_kernel(g_ptr, out_ptr, M, N, n_chunks, sgb, sgm, sgn, CHUNK: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    b = (pid // n_chunks).to(tl.int64)
    start = (pid % n_chunks).to(tl.int64) * CHUNK
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, CHUNK, BLOCK):
        i = start + off + tl.arange(0, BLOCK).to(tl.int64)
        mask = i < M * N
        g = tl.load(g_ptr + b * sgb + (i // N) * sgm + (i % N) * sgn, mask=mask, other=0.0).to(tl.float32)
        acc += g * g
    tl.store(out_ptr + b, tl.sum(acc, axis=0))


def per_sample_sqnorm(g: torch.Tensor, CHUNK: int = 4096, BLOCK: int = 512) -> torch.Tensor:
    B, M, N = g.shape
    out = torch.zeros((B,), dtype=torch.float32, device=g.device)
    if B == 0 or M * N == 0:
        return out
    n_chunks = triton.cdiv(M * N, CHUNK)
    sqnorm_kernel[(B * n_chunks,)](g, out, M, N, n_chunks, *g.stride(), CHUNK=CHUNK, BLOCK=BLOCK)
    return out


def reference(g: torch.Tensor) -> torch.Tensor:
    return g.pow(2).sum(dim=(1, 2))


spec = kcheck.Spec(
    name="hx19_per_sample_sqnorm",
    kernel=per_sample_sqnorm,
    reference=reference,
    inputs=[kcheck.Tensor("B", "M", "N", name="grads")],
    dims={"B": kcheck.Dim(nominal=4, max=8, real=()), "M": kcheck.Dim(nominal=96, real=()),
          "N": kcheck.Dim(nominal=200, real=())},
    reduce=["M", "N"],
    output_dtypes=[torch.float32],
    configs=[{"CHUNK": 4096, "BLOCK": 512}, {"CHUNK": 1024, "BLOCK": 256}],
)
