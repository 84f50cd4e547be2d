"""Dynamic height anomaly of hydrographic profiles (oceanography): the specific volume anomaly integrated over
pressure,

    D[p] = sum_l delta[l, p] * dp[l]

for P profiles sampled on L common pressure levels (delta: specific volume anomaly at each level, dp: the pressure
thickness of each level's layer). The data is level-major ([L, P], one row per level as the gridded product stores
it), so this is a column reduction: each program owns BLOCK_P profiles and walks the levels in BLOCK_L-wide chunks,
accumulating in fp32. int64 offsets, any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "tail-tile-dropped"


@triton.jit
def dynamic_height_kernel(d_ptr, dp_ptr, out_ptr, L, P, stride_dl, stride_dp, stride_w,
                          BLOCK_L: tl.constexpr, BLOCK_P: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    cols = pid * BLOCK_P + tl.arange(0, BLOCK_P).to(tl.int64)
    col_mask = cols < P
    acc = tl.zeros([BLOCK_L, BLOCK_P], dtype=tl.float32)
    for i in range(0, L // BLOCK_L):
        levels = i * BLOCK_L + tl.arange(0, BLOCK_L).to(tl.int64)
        level_mask = levels < L
        dp = tl.load(dp_ptr + levels * stride_w, mask=level_mask, other=0.0).to(tl.float32)
        d = tl.load(d_ptr + levels[:, None] * stride_dl + cols[None, :] * stride_dp,
                    mask=level_mask[:, None] & col_mask[None, :], other=0.0).to(tl.float32)
        acc += d * dp[:, None]
    total = tl.sum(acc, axis=0)
    tl.store(out_ptr + cols, total.to(out_ptr.dtype.element_ty), mask=col_mask)


def dynamic_height_anomaly(delta: torch.Tensor, dp: torch.Tensor, BLOCK_L: int = 64,
                           BLOCK_P: int = 64) -> torch.Tensor:
    L, P = delta.shape
    out = torch.empty((P,), dtype=delta.dtype, device=delta.device)
    if P == 0:
        return out
    if L == 0:
        return out.zero_()
    block_l = min(BLOCK_L, triton.next_power_of_2(L))
    block_p = min(BLOCK_P, triton.next_power_of_2(P))
    dynamic_height_kernel[(triton.cdiv(P, block_p),)](delta, dp, out, L, P, delta.stride(0), delta.stride(1),
                                                      dp.stride(0), BLOCK_L=block_l, BLOCK_P=block_p)
    return out


def reference(delta: torch.Tensor, dp: torch.Tensor) -> torch.Tensor:
    return (delta * dp[:, None]).sum(0)


spec = kcheck.Spec(
    name="hx38_dynamic_height_anomaly",
    kernel=dynamic_height_anomaly,
    reference=reference,
    inputs=[kcheck.Tensor("L", "P", name="specific_volume_anomaly"), kcheck.Tensor("L", name="layer_dp")],
    dims={"L": kcheck.Dim(nominal=200), "P": kcheck.Dim(nominal=256)},
    reduce=["L"],
    configs=[{"BLOCK_L": 64, "BLOCK_P": 64}, {"BLOCK_L": 16, "BLOCK_P": 128}],
    properties=[kcheck.props.linear(0)],
)
