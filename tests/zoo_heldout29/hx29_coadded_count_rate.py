"""Count rate of a stack of co-added exposures (astronomy): rate[p] = sum_k counts[k, p] / sum_k t[k], the photon
counts of K frames summed per pixel and divided by the total exposure time, the unbiased rate estimate for frames
of different lengths.

Each program takes BLOCK_P pixels and adds the frames one after another into a running sum started from the first
frame and kept in fp32; the exposure total is summed the same way. Frame offsets are int64.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "low-precision-accumulation"


@triton.jit
def coadd_kernel(counts_ptr, t_ptr, out_ptr, K, P, s_ck, s_cp, s_t, s_o, BLOCK_P: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    pix = pid * BLOCK_P + tl.arange(0, BLOCK_P).to(tl.int64)
    mask = pix < P
    acc = tl.load(counts_ptr + pix * s_cp, mask=mask & (K > 0), other=0.0)
    total_t = tl.load(t_ptr, mask=K > 0, other=0.0).to(tl.float32)
    for k in range(1, K):
        acc += tl.load(counts_ptr + k * s_ck + pix * s_cp, mask=mask, other=0.0)
        total_t += tl.load(t_ptr + k * s_t)
    tl.store(out_ptr + pix * s_o, (acc / total_t).to(out_ptr.dtype.element_ty), mask=mask)


def coadded_count_rate(counts: torch.Tensor, exposure: torch.Tensor, BLOCK_P: int = 128) -> torch.Tensor:
    K, P = counts.shape
    out = torch.empty((P,), dtype=counts.dtype, device=counts.device)
    if P == 0:
        return out
    coadd_kernel[(triton.cdiv(P, BLOCK_P),)](counts, exposure, out, K, P, counts.stride(0), counts.stride(1),
                                             exposure.stride(0), out.stride(0), BLOCK_P=BLOCK_P)
    return out


def reference(counts: torch.Tensor, exposure: torch.Tensor) -> torch.Tensor:
    return counts.sum(0) / exposure.sum()


def exposures(ctx: kcheck.CaseContext) -> torch.Tensor:
    """Frame lengths in seconds, 30 to 300 (a survey's mix of short and long frames)."""
    return (30.0 + 270.0 * ctx.rand(ctx.dims["K"], dtype=torch.float32)).to(ctx.dtype)


spec = kcheck.Spec(
    name="coadded_count_rate",
    kernel=coadded_count_rate,
    reference=reference,
    inputs=[kcheck.Tensor("K", "P", name="counts"), kcheck.Custom(exposures, name="exposure", dims=("K",))],
    dims={"K": kcheck.Dim(nominal=512), "P": kcheck.Dim(nominal=256)},
    reduce=["K"],
    configs=[{"BLOCK_P": 128}, {"BLOCK_P": 64}],
)
