"""One step of a discrete linear state-space model for a batch of B systems sharing (A, Bm):
x'[b] = A x[b] + Bm u[b], i.e. x'[b, i] = sum_j A[i, j] x[b, j] + sum_k Bm[i, k] u[b, k]. The state (D) and input
(P) sizes are small (at most 32); each program takes BLOCK_B systems and forms the products by broadcasting
[BLOCK_B, D, D] and [BLOCK_B, D, P] tiles, summed in fp32. int64 batch offsets, every stride honoured."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "index-transposition"


@triton.jit
def state_space_kernel(x_ptr, u_ptr, a_ptr, bm_ptr, out_ptr, B, D, P,
                       s_xb, s_xd, s_ub, s_up, s_a0, s_a1, s_b0, s_b1, s_ob, s_od,
                       BLOCK_B: tl.constexpr, BLOCK_D: tl.constexpr, BLOCK_P: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    bs = pid * BLOCK_B + tl.arange(0, BLOCK_B).to(tl.int64)
    i = tl.arange(0, BLOCK_D).to(tl.int64)
    p = tl.arange(0, BLOCK_P).to(tl.int64)
    b_mask = bs < B
    d_mask = i < D
    p_mask = p < P
    x = tl.load(x_ptr + bs[:, None] * s_xb + i[None, :] * s_xd, mask=b_mask[:, None] & d_mask[None, :],
                other=0.0).to(tl.float32)
    u = tl.load(u_ptr + bs[:, None] * s_ub + p[None, :] * s_up, mask=b_mask[:, None] & p_mask[None, :],
                other=0.0).to(tl.float32)
    a = tl.load(a_ptr + i[:, None] * s_a1 + i[None, :] * s_a0, mask=d_mask[:, None] & d_mask[None, :],
                other=0.0).to(tl.float32)
    bm = tl.load(bm_ptr + i[:, None] * s_b0 + p[None, :] * s_b1, mask=d_mask[:, None] & p_mask[None, :],
                 other=0.0).to(tl.float32)
    y = tl.sum(a[None, :, :] * x[:, None, :], axis=2) + tl.sum(bm[None, :, :] * u[:, None, :], axis=2)
    tl.store(out_ptr + bs[:, None] * s_ob + i[None, :] * s_od, y.to(out_ptr.dtype.element_ty),
             mask=b_mask[:, None] & d_mask[None, :])


def state_space_step(x: torch.Tensor, u: torch.Tensor, A: torch.Tensor, Bm: torch.Tensor,
                     BLOCK_B: int = 16) -> torch.Tensor:
    B, D = x.shape
    P = u.shape[1]
    out = torch.empty((B, D), dtype=x.dtype, device=x.device)
    if B == 0 or D == 0:
        return out
    block_d = triton.next_power_of_2(D)
    block_p = triton.next_power_of_2(max(P, 1))
    state_space_kernel[(triton.cdiv(B, BLOCK_B),)](
        x, u, A, Bm, out, B, D, P, x.stride(0), x.stride(1), u.stride(0), u.stride(1), A.stride(0), A.stride(1),
        Bm.stride(0), Bm.stride(1), out.stride(0), out.stride(1), BLOCK_B=BLOCK_B, BLOCK_D=block_d, BLOCK_P=block_p)
    return out


def reference(x: torch.Tensor, u: torch.Tensor, A: torch.Tensor, Bm: torch.Tensor) -> torch.Tensor:
    return x @ A.T + u @ Bm.T


spec = kcheck.Spec(
    name="hx31_state_space_step",
    kernel=state_space_step,
    reference=reference,
    inputs=[kcheck.Tensor("B", "D", name="x"), kcheck.Tensor("B", "P", name="u"),
            kcheck.Tensor("D", "D", name="A"), kcheck.Tensor("D", "P", name="Bm")],
    dims={"B": kcheck.Dim(nominal=200), "D": kcheck.Dim(nominal=12, max=32, real=(6,)),
          "P": kcheck.Dim(nominal=4, max=32, real=(2,))},
    reduce=["D", "P"],
    configs=[{"BLOCK_B": 16}, {"BLOCK_B": 4}],
)
