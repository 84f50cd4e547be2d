"""Ensemble mean and spread of a forecast ensemble (meteorology / oceanography): x is [members, grid points]; for
every grid point p

    mean[p]   = (1/E) sum_e x[e, p]
    spread[p] = sqrt((1/E) sum_e (x[e, p] - mean[p])^2)      (population standard deviation about the mean)

A column reduction: each program owns BLOCK_P grid points and walks the members in BLOCK_E chunks, twice (sum,
then squared deviations), in fp32 on data shifted by the first member (x[0, p]) so that a large mean costs no
precision. Two outputs in the input dtype; int64 offsets; any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "tail-tile-dropped"


@triton.jit
def mean_spread_kernel(x_ptr, mean_ptr, spread_ptr, E, P, s_e, s_p, s_mean, s_spread,
                       BLOCK_E: tl.constexpr, BLOCK_P: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    cols = pid * BLOCK_P + tl.arange(0, BLOCK_P).to(tl.int64)
    col_mask = cols < P
    col_ptr = x_ptr + cols[None, :] * s_p
    shift = tl.load(col_ptr, mask=col_mask[None, :], other=0.0).to(tl.float32)  # x[0, p], shape [1, BLOCK_P]
    acc = tl.zeros([BLOCK_E, BLOCK_P], dtype=tl.float32)
    for start in range(0, E, BLOCK_E):
        members = start + tl.arange(0, BLOCK_E).to(tl.int64)
        mask = (members < E)[:, None] & col_mask[None, :]
        x = tl.load(col_ptr + members[:, None] * s_e, mask=mask, other=0.0).to(tl.float32)
        acc += tl.where(mask, x - shift, 0.0)
    dmean = tl.sum(acc, axis=0) / E
    acc = tl.zeros([BLOCK_E, BLOCK_P], dtype=tl.float32)
    for start in range(0, E, BLOCK_E):
        members = start + tl.arange(0, BLOCK_E).to(tl.int64)
        mask = (members < E)[:, None] & col_mask[None, :]
        x = tl.load(col_ptr + members[:, None] * s_e, mask=mask, other=0.0).to(tl.float32)
        d = tl.where(mask, (x - shift) - dmean[None, :], 0.0)
        acc += d * d
    spread = tl.sqrt(tl.sum(acc, axis=0) / E)
    mean = tl.reshape(shift, [BLOCK_P]) + dmean
    tl.store(mean_ptr + cols * s_mean, mean.to(mean_ptr.dtype.element_ty), mask=col_mask)
    tl.store(spread_ptr + cols * s_spread, spread.to(spread_ptr.dtype.element_ty), mask=col_mask)


def ensemble_mean_spread(x: torch.Tensor, BLOCK_E: int = 16, BLOCK_P: int = 64) -> tuple[torch.Tensor, torch.Tensor]:
    E, P = x.shape
    mean = torch.empty((P,), dtype=x.dtype, device=x.device)
    spread = torch.empty((P,), dtype=x.dtype, device=x.device)
    if P == 0:
        return mean, spread
    grid = (P // BLOCK_P,)
    mean_spread_kernel[grid](x, mean, spread, E, P, x.stride(0), x.stride(1), mean.stride(0), spread.stride(0),
                             BLOCK_E=BLOCK_E, BLOCK_P=BLOCK_P)
    return mean, spread


def reference(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    mean = x.mean(0)
    spread = (x - mean).pow(2).mean(0).sqrt()
    return mean, spread


spec = kcheck.Spec(
    name="hx37_ensemble_mean_spread",
    kernel=ensemble_mean_spread,
    reference=reference,
    inputs=[kcheck.Tensor("E", "P", name="members")],
    dims={"E": kcheck.Dim(nominal=50, min=1), "P": kcheck.Dim(nominal=720)},
    reduce=["E"],
    configs=[{"BLOCK_E": 16, "BLOCK_P": 64}, {"BLOCK_E": 8, "BLOCK_P": 128}],
)
