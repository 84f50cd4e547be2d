"""Seasonal crop water demand per field (agronomy, FAO-56 single crop coefficient method).

et0 is [T, F]: the daily reference evapotranspiration (mm) of T days (rows) at F fields (columns); kc is the [T]
crop coefficient curve of the season (one value per day, the same crop on every field). The season's crop
evapotranspiration of field f is ETc[f] = sum over days t of kc[t] * et0[t, f]: a weighted column reduction.
Programs own BLOCK_F fields and walk the days BLOCK_T at a time, keeping a [BLOCK_T, BLOCK_F] tile of fp32 running
sums that is reduced over its day axis at the end.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "low-precision-accumulation"


@triton.jit
def etc_season_kernel(et0_ptr, kc_ptr, out_ptr, T, F, s_et, s_ef, s_k, s_o,
                      BLOCK_T: tl.constexpr, BLOCK_F: tl.constexpr):
    cols = tl.program_id(0).to(tl.int64) * BLOCK_F + tl.arange(0, BLOCK_F)
    col_mask = cols < F
    acc = tl.zeros((BLOCK_T, BLOCK_F), dtype=et0_ptr.dtype.element_ty)
    for t0 in range(0, T, BLOCK_T):
        days = t0 + tl.arange(0, BLOCK_T).to(tl.int64)
        day_mask = days < T
        e = tl.load(et0_ptr + days[:, None] * s_et + cols[None, :] * s_ef,
                    mask=day_mask[:, None] & col_mask[None, :], other=0.0)
        k = tl.load(kc_ptr + days * s_k, mask=day_mask, other=0.0)
        acc += k[:, None] * e
    tl.store(out_ptr + cols * s_o, tl.sum(acc, axis=0).to(out_ptr.dtype.element_ty), mask=col_mask)


def crop_water_demand(et0: torch.Tensor, kc: torch.Tensor, BLOCK_T: int = 16, BLOCK_F: int = 64) -> torch.Tensor:
    T, F = et0.shape
    out = torch.empty((F,), dtype=et0.dtype, device=et0.device)
    if F == 0:
        return out
    etc_season_kernel[(triton.cdiv(F, BLOCK_F),)](et0, kc, out, T, F, et0.stride(0), et0.stride(1), kc.stride(0),
                                                  out.stride(0), BLOCK_T=BLOCK_T, BLOCK_F=BLOCK_F)
    return out


def reference(et0: torch.Tensor, kc: torch.Tensor) -> torch.Tensor:
    return (kc[:, None] * et0).sum(0)


spec = kcheck.Spec(
    name="hx40_crop_water_demand",
    kernel=crop_water_demand,
    reference=reference,
    inputs=[kcheck.Tensor("T", "F", name="et0"), kcheck.Tensor("T", name="kc")],
    dims={"T": kcheck.Dim(nominal=4000), "F": kcheck.Dim(nominal=48)},
    reduce=["T"],
    configs=[{"BLOCK_T": 16, "BLOCK_F": 64}, {"BLOCK_T": 64, "BLOCK_F": 32}],
)
