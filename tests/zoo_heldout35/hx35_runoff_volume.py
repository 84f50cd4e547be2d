"""Event runoff volume of each catchment from its discharge hydrograph.

V[m] = dt * sum_t Q[m, t]   (rectangle rule, dt in seconds, Q in m^3/s; the result in m^3, here in units of dt)
Each program takes BLOCK_M catchments and walks the record in BLOCK_T-wide chunks, accumulating a
[BLOCK_M, BLOCK_T] tile in fp32, reduced once at the end; the volume is returned in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "low-precision-accumulation"

DT = 0.25  # quarter-hour records, in hours


@triton.jit
def runoff_volume_kernel(q_ptr, out_ptr, M, T, dt, s_qm, s_qt, s_o,
                         BLOCK_M: tl.constexpr, BLOCK_T: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < M
    acc = tl.zeros([BLOCK_M, BLOCK_T], dtype=q_ptr.dtype.element_ty)
    for start in range(0, T, BLOCK_T):
        t = start + tl.arange(0, BLOCK_T).to(tl.int64)
        mask = row_mask[:, None] & (t < T)[None, :]
        q = tl.load(q_ptr + rows[:, None] * s_qm + t[None, :] * s_qt, mask=mask, other=0.0)
        acc += q
    vol = tl.sum(acc, axis=1) * dt
    tl.store(out_ptr + rows * s_o, vol.to(out_ptr.dtype.element_ty), mask=row_mask)


def runoff_volume(q, BLOCK_M=4, BLOCK_T=64):
    M, T = q.shape
    out = torch.empty(M, dtype=q.dtype, device=q.device)
    if M == 0:
        return out
    runoff_volume_kernel[(triton.cdiv(M, BLOCK_M),)](q, out, M, T, DT, q.stride(0), q.stride(1), out.stride(0),
                                                     BLOCK_M=BLOCK_M, BLOCK_T=BLOCK_T)
    return out


def reference(q):
    return q.sum(-1) * DT


spec = kcheck.Spec(
    name="hx35_runoff_volume",
    kernel=runoff_volume,
    reference=reference,
    inputs=[kcheck.Tensor("M", "T", name="discharge")],
    dims={"M": kcheck.Dim(nominal=16), "T": kcheck.Dim(nominal=4096)},
    reduce=["T"],
    configs=[{"BLOCK_M": 4, "BLOCK_T": 64}, {"BLOCK_M": 2, "BLOCK_T": 256}],
    properties=[kcheck.props.linear(0)],
)
