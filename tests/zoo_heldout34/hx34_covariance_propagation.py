"""Kalman-filter covariance prediction for a batch of tracks: P' = F P F^T + Q.

F[b] is the [D, D] state-transition Jacobian of track b, P[b] its state covariance, Q the process noise shared by
all tracks (D <= 8: a 6-DoF pose, a constant-acceleration 2-D state). One program takes BLOCK_B tracks; the product is
accumulated one intermediate index k at a time,

    P'[b, i, j] = sum_k F[b, i, k] * H[b, k, j],    H[b, k, j] = sum_l P[b, k, l] * F[b, j, l],

so every tile is [BLOCK_B, BLOCK_D, BLOCK_D] and nothing needs a register transpose. fp32 arithmetic.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "index-transposition"


@triton.jit
def covariance_predict_kernel(f_ptr, p_ptr, q_ptr, out_ptr, B, D,
                              s_fb, s_fr, s_fc, s_pb, s_pr, s_pc, s_qr, s_qc, s_ob, s_or, s_oc,
                              BLOCK_B: tl.constexpr, BLOCK_D: tl.constexpr):
    b = tl.program_id(0).to(tl.int64) * BLOCK_B + tl.arange(0, BLOCK_B).to(tl.int64)
    d = tl.arange(0, BLOCK_D).to(tl.int64)
    bmask = b < B
    dmask = d < D
    b3 = b[:, None, None]
    r3 = d[None, :, None]
    c3 = d[None, None, :]
    mask3 = bmask[:, None, None] & dmask[None, :, None] & dmask[None, None, :]
    mask2 = bmask[:, None] & dmask[None, :]
    f = tl.load(f_ptr + b3 * s_fb + r3 * s_fr + c3 * s_fc, mask=mask3, other=0.0).to(tl.float32)  # [b, j, l]
    acc = tl.zeros([BLOCK_B, BLOCK_D, BLOCK_D], dtype=tl.float32)
    for k in range(0, D):
        p_row = tl.load(p_ptr + b[:, None] * s_pb + k * s_pr + d[None, :] * s_pc, mask=mask2,
                        other=0.0).to(tl.float32)  # P[b, k, l]
        h = tl.sum(p_row[:, None, :] * f, axis=2)  # H[b, k, j]
        f_col = tl.load(f_ptr + b[:, None] * s_fb + d[None, :] * s_fc + k * s_fr, mask=mask2,
                        other=0.0).to(tl.float32)  # F[b, i, k]
        acc += f_col[:, :, None] * h[:, None, :]
    q = tl.load(q_ptr + r3 * s_qr + c3 * s_qc, mask=dmask[None, :, None] & dmask[None, None, :],
                other=0.0).to(tl.float32)
    tl.store(out_ptr + b3 * s_ob + r3 * s_or + c3 * s_oc, (acc + q).to(out_ptr.dtype.element_ty), mask=mask3)


def covariance_predict(F: torch.Tensor, P: torch.Tensor, Q: torch.Tensor, BLOCK_B: int = 32) -> torch.Tensor:
    B, D, _ = F.shape
    out = torch.empty((B, D, D), dtype=P.dtype, device=P.device)
    if B == 0 or D == 0:
        return out
    covariance_predict_kernel[(triton.cdiv(B, BLOCK_B),)](
        F, P, Q, out, B, D, F.stride(0), F.stride(1), F.stride(2), P.stride(0), P.stride(1), P.stride(2),
        Q.stride(0), Q.stride(1), out.stride(0), out.stride(1), out.stride(2),
        BLOCK_B=BLOCK_B, BLOCK_D=triton.next_power_of_2(D))
    return out


def reference(F: torch.Tensor, P: torch.Tensor, Q: torch.Tensor) -> torch.Tensor:
    return F @ (P @ F.transpose(-1, -2)) + Q


spec = kcheck.Spec(
    name="covariance_propagation",
    kernel=covariance_predict,
    reference=reference,
    inputs=[kcheck.Tensor("B", "D", "D", name="F"), kcheck.Tensor("B", "D", "D", name="P"),
            kcheck.Tensor("D", "D", name="Q")],
    dims={"B": kcheck.Dim(nominal=200, real=()), "D": kcheck.Dim(nominal=6, max=8, real=())},
    reduce=["D"],
    configs=[{"BLOCK_B": 32}, {"BLOCK_B": 8}],
)
