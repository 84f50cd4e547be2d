"""Joint torques from end-effector wrenches through the manipulator Jacobian (robotics statics):

tau[b, n] = sum_k J[b, k, n] * f[b, k],   J: [B, 6, N] (6 = linear + angular rows), f: [B, 6]

One program per (robot, BLOCK_N joints): the 6 x BLOCK_N Jacobian tile (6 padded to 8) is loaded with the tensor's
own strides and contracted against the wrench in fp32.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = 'index-transposition'


@triton.jit
def jt_torque_kernel(j_ptr, f_ptr, tau_ptr, N, s_jb, s_jk, s_jn, s_fb, s_fk, s_tb, s_tn, BLOCK_N: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    ns = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    ks = tl.arange(0, 8).to(tl.int64)
    k_mask = ks < 6
    n_mask = ns < N
    mask = k_mask[:, None] & n_mask[None, :]
    jac = tl.load(j_ptr + b * s_jb + ks[:, None] * s_jn + ns[None, :] * s_jk, mask=mask, other=0.0).to(tl.float32)
    f = tl.load(f_ptr + b * s_fb + ks * s_fk, mask=k_mask, other=0.0).to(tl.float32)
    tau = tl.sum(jac * f[:, None], axis=0)
    tl.store(tau_ptr + b * s_tb + ns * s_tn, tau.to(tau_ptr.dtype.element_ty), mask=n_mask)


def jacobian_transpose_torque(jac: torch.Tensor, wrench: torch.Tensor, BLOCK_N: int = 64) -> torch.Tensor:
    B, _, N = jac.shape
    tau = torch.empty((B, N), dtype=jac.dtype, device=jac.device)
    if B == 0 or N == 0:
        return tau
    jt_torque_kernel[(B, triton.cdiv(N, BLOCK_N))](
        jac, wrench, tau, N, jac.stride(0), jac.stride(1), jac.stride(2), wrench.stride(0), wrench.stride(1),
        tau.stride(0), tau.stride(1), BLOCK_N=BLOCK_N)
    return tau


def reference(jac: torch.Tensor, wrench: torch.Tensor) -> torch.Tensor:
    return torch.einsum("bkn,bk->bn", jac, wrench)


spec = kcheck.Spec(
    name="hx27_jacobian_transpose_torque",
    kernel=jacobian_transpose_torque,
    reference=reference,
    inputs=[kcheck.Tensor("B", 6, "N", name="jacobian"), kcheck.Tensor("B", 6, name="wrench")],
    dims={"B": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=7, real=(6, 7, 12))},
    configs=[{"BLOCK_N": 64}, {"BLOCK_N": 8}],
)
