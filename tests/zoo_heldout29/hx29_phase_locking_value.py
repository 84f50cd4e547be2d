"""Phase-locking value between two phase series per channel pair: PLV = |(1/N) sum_t exp(i (phi1[t] - phi2[t]))|
= sqrt(C^2 + S^2) / N with C = sum cos(phi1 - phi2) and S = sum sin(phi1 - phi2) (EEG/MEG connectivity; 1 for a
constant phase lag, near 0 for unrelated phases). Phases in radians, [pairs, samples].

Each program takes BLOCK_M pairs and walks the samples in tl.cdiv(N, BLOCK_N) chunks, C and S summed per lane in
fp32. An empty series has PLV 0. Row offsets are int64.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "tail-tile-dropped"


@triton.jit
def plv_kernel(p1_ptr, p2_ptr, out_ptr, M, N, s_am, s_an, s_bm, s_bn, s_o,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    c_acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    s_acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for chunk in range(0, N // BLOCK_N):
        cols = chunk * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]
        a = tl.load(p1_ptr + rows[:, None] * s_am + cols[None, :] * s_an, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(p2_ptr + rows[:, None] * s_bm + cols[None, :] * s_bn, mask=mask, other=0.0).to(tl.float32)
        d = a - b
        c_acc += tl.where(mask, tl.cos(d), 0.0)
        s_acc += tl.where(mask, tl.sin(d), 0.0)
    c = tl.sum(c_acc, axis=1)
    s = tl.sum(s_acc, axis=1)
    plv = tl.sqrt(c * c + s * s) / tl.maximum(N, 1)
    tl.store(out_ptr + rows * s_o, plv.to(out_ptr.dtype.element_ty), mask=row_mask)


def phase_locking_value(phi1: torch.Tensor, phi2: torch.Tensor, BLOCK_N: int = 128) -> torch.Tensor:
    M, N = phi1.shape
    out = torch.empty((M,), dtype=phi1.dtype, device=phi1.device)
    if M == 0:
        return out
    block_m = 8
    plv_kernel[(triton.cdiv(M, block_m),)](
        phi1, phi2, out, M, N, phi1.stride(0), phi1.stride(1), phi2.stride(0), phi2.stride(1), out.stride(0),
        BLOCK_M=block_m, BLOCK_N=BLOCK_N)
    return out


def reference(phi1: torch.Tensor, phi2: torch.Tensor) -> torch.Tensor:
    d = phi1 - phi2
    c, s = torch.cos(d).sum(-1), torch.sin(d).sum(-1)
    return torch.sqrt(c * c + s * s) / max(phi1.shape[-1], 1)


spec = kcheck.Spec(
    name="phase_locking_value",
    kernel=phase_locking_value,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="phi1"), kcheck.Tensor("M", "N", name="phi2")],
    dims={"M": kcheck.Dim(nominal=48), "N": kcheck.Dim(nominal=600)},
    reduce=["N"],
    configs=[{"BLOCK_N": 128}, {"BLOCK_N": 64}],
)
