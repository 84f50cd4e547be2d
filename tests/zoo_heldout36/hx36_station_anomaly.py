"""Climate: anomalies of a station network's record, x[t, s] - mean over time of station s (the departure of
every observation from its station's climatology). One program per block of BLOCK stations: a first pass sums the
record over time in [BLOCK, BLOCK] tiles (fp32), a second pass writes the anomalies. Strides honoured."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-axis"


@triton.jit
def anomaly_kernel(x_ptr, out_ptr, T, S, s_xt, s_xs, s_ot, s_os, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    st = pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    st_mask = st < S
    total = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, T, BLOCK):
        t = start + tl.arange(0, BLOCK).to(tl.int64)
        mask = (t < T)[:, None] & st_mask[None, :]
        x = tl.load(x_ptr + t[:, None] * s_xt + st[None, :] * s_xs, mask=mask, other=0.0).to(tl.float32)
        total += tl.sum(x, axis=1)
    mean = total / T
    for start in range(0, T, BLOCK):
        t = start + tl.arange(0, BLOCK).to(tl.int64)
        mask = (t < T)[:, None] & st_mask[None, :]
        x = tl.load(x_ptr + t[:, None] * s_xt + st[None, :] * s_xs, mask=mask, other=0.0).to(tl.float32)
        tl.store(out_ptr + t[:, None] * s_ot + st[None, :] * s_os, (x - mean[None, :]).to(out_ptr.dtype.element_ty),
                 mask=mask)


def station_anomaly(x: torch.Tensor, BLOCK: int = 32) -> torch.Tensor:
    T, S = x.shape
    out = torch.empty((T, S), dtype=x.dtype, device=x.device)
    if T == 0 or S == 0:
        return out
    anomaly_kernel[(triton.cdiv(S, BLOCK),)](x, out, T, S, x.stride(0), x.stride(1), out.stride(0), out.stride(1),
                                             BLOCK=BLOCK)
    return out


spec = kcheck.Spec(
    name="hx36_station_anomaly",
    kernel=station_anomaly,
    reference=lambda x: x - x.mean(0, keepdim=True),
    inputs=[kcheck.Tensor("T", "S", name="x")],
    dims={"T": kcheck.Dim(nominal=365, max=8192), "S": kcheck.Dim(nominal=96)},
    reduce=["T"],
    configs=[{"BLOCK": 32}, {"BLOCK": 64}],
    properties=[kcheck.props.linear()],
)
