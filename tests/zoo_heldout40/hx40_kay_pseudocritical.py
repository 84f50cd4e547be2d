"""Pseudo-critical temperature and pressure of gas mixtures by Kay's rule (chemistry / chemical engineering).

y is [M, C]: the mole fractions of C species in each of M mixtures (one mixture per row); tc and pc are the [C]
critical temperatures and pressures of the species. Kay's rule gives each mixture
T_pc[m] = sum_c y[m, c] * tc[c] and P_pc[m] = sum_c y[m, c] * pc[c]: two weighted row reductions sharing one
read of y. Programs own BLOCK mixtures and walk the species in BLOCK-wide chunks (square tiles), fp32 sums.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-axis"


@triton.jit
def kay_kernel(y_ptr, tc_ptr, pc_ptr, tpc_ptr, ppc_ptr, M, C, s_ym, s_yc, s_t, s_p, BLOCK: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    row_mask = rows < M
    t_acc = tl.zeros((BLOCK,), dtype=tl.float32)
    p_acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, C, BLOCK):
        sp = c0 + tl.arange(0, BLOCK).to(tl.int64)
        sp_mask = sp < C
        y = tl.load(y_ptr + rows[:, None] * s_ym + sp[None, :] * s_yc, mask=row_mask[:, None] & sp_mask[None, :],
                    other=0.0).to(tl.float32)
        tc = tl.load(tc_ptr + sp * s_t, mask=sp_mask, other=0.0).to(tl.float32)
        pc = tl.load(pc_ptr + sp * s_p, mask=sp_mask, other=0.0).to(tl.float32)
        t_acc += tl.sum(y * tc[:, None], axis=1)
        p_acc += tl.sum(y * pc[None, :], axis=1)
    tl.store(tpc_ptr + rows, t_acc.to(tpc_ptr.dtype.element_ty), mask=row_mask)
    tl.store(ppc_ptr + rows, p_acc.to(ppc_ptr.dtype.element_ty), mask=row_mask)


def kay_pseudocritical(y: torch.Tensor, tc: torch.Tensor, pc: torch.Tensor,
                       BLOCK: int = 32) -> tuple[torch.Tensor, torch.Tensor]:
    M, C = y.shape
    tpc = torch.empty((M,), dtype=y.dtype, device=y.device)
    ppc = torch.empty((M,), dtype=y.dtype, device=y.device)
    if M:
        kay_kernel[(triton.cdiv(M, BLOCK),)](y, tc, pc, tpc, ppc, M, C, y.stride(0), y.stride(1), tc.stride(0),
                                            pc.stride(0), BLOCK=BLOCK)
    return tpc, ppc


def reference(y: torch.Tensor, tc: torch.Tensor, pc: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return y @ tc, y @ pc


spec = kcheck.Spec(
    name="hx40_kay_pseudocritical",
    kernel=kay_pseudocritical,
    reference=reference,
    inputs=[kcheck.Tensor("M", "C", name="y"), kcheck.Tensor("C", name="tc"), kcheck.Tensor("C", name="pc")],
    dims={"M": kcheck.Dim(nominal=300), "C": kcheck.Dim(nominal=40)},
    reduce=["C"],
    configs=[{"BLOCK": 32}, {"BLOCK": 64}],
)
