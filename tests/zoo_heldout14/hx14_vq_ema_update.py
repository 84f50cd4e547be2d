"""EMA codebook statistics of a VQ-VAE / VQGAN quantizer (van den Oord et al., the `EMA` variant): after the
encoder's vectors z [T, D] are assigned to their nearest codes, the running per-code sum of assigned vectors is
updated in place: ema_sum = decay * ema_sum + (1 - decay) * sum_{t : code[t] = k} z[t].

Two launches on the fp32 statistics (the codebook's EMA buffers stay fp32 whatever the encoder's dtype): a flat
1-D grid scales ema_sum by decay, then one program per encoder vector adds (1 - decay) * z[t] into its code's row,
BLOCK_D columns at a time.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "missing-atomic"


@triton.jit
def scale_kernel(buf_ptr, numel, D, decay, stride_k, stride_d, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < numel
    ptr = buf_ptr + (offs // D) * stride_k + (offs % D) * stride_d
    v = tl.load(ptr, mask=mask)
    tl.store(ptr, v * decay, mask=mask)


@triton.jit
def assign_add_kernel(z_ptr, code_ptr, sum_ptr, D, one_minus_decay, stride_zt, stride_zd, stride_k, stride_d,
                      BLOCK_D: tl.constexpr):
    t = tl.program_id(0).to(tl.int64)
    k = tl.load(code_ptr + t)
    row = sum_ptr + k * stride_k
    for d0 in range(0, D, BLOCK_D):
        cols = d0 + tl.arange(0, BLOCK_D)
        m = cols < D
        z = tl.load(z_ptr + t * stride_zt + cols * stride_zd, mask=m, other=0.0).to(tl.float32)
        cur = tl.load(row + cols * stride_d, mask=m, other=0.0)
        tl.store(row + cols * stride_d, cur + one_minus_decay * z, mask=m)


def vq_ema_update(z: torch.Tensor, codes: torch.Tensor, ema_sum: torch.Tensor, decay: float = 0.99,
                  BLOCK_D: int = 64) -> torch.Tensor:
    T, D = z.shape
    K = ema_sum.shape[0]
    if K * D:
        scale_kernel[(triton.cdiv(K * D, 1024),)](ema_sum, K * D, D, decay, ema_sum.stride(0), ema_sum.stride(1),
                                                  BLOCK=1024)
    if T and D:
        assign_add_kernel[(T,)](z, codes, ema_sum, D, 1.0 - decay, z.stride(0), z.stride(1), ema_sum.stride(0),
                                ema_sum.stride(1), BLOCK_D=BLOCK_D)
    return ema_sum


def reference(z: torch.Tensor, codes: torch.Tensor, ema_sum: torch.Tensor, decay: float = 0.99) -> torch.Tensor:
    return decay * ema_sum + (1.0 - decay) * torch.zeros_like(ema_sum).index_add_(0, codes, z.to(ema_sum.dtype))


spec = kcheck.Spec(
    name="hx14_vq_ema_update",
    kernel=vq_ema_update,
    reference=reference,
    inputs=[kcheck.Tensor("T", "D", name="z"), kcheck.Index("T", high="K", name="codes"),
            kcheck.Tensor("K", "D", dtype=torch.float32, mutated=True, name="ema_sum")],
    dims={"T": kcheck.Dim(nominal=512), "D": kcheck.Dim(nominal=64), "K": kcheck.Dim(nominal=32)},
    reduce=["T"],
    output_dtypes=[torch.float32],
    params={"decay": [0.99, 0.5]},
    configs=[{"BLOCK_D": 64}, {"BLOCK_D": 16}],
)
