"""Force of infection per age group (epidemiology): lambda[i] = beta * sum_j C[i, j] * prev[j].

C is the [M, K] contact matrix (mean daily contacts of a member of group i with group j), prev the [K] prevalence
of infection in each contact group and beta the transmission probability per contact. One program per BLOCK_M
groups walks the K contact groups in BLOCK_K-wide chunks, accumulating in fp32; strides honoured, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "tail-tile-dropped"


@triton.jit
def foi_kernel(c_ptr, prev_ptr, lam_ptr, M, K, beta, s_cm, s_ck, s_p, s_l,
               BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    acc = tl.zeros((BLOCK_M,), dtype=tl.float32)
    num_k = K // BLOCK_K
    for kb in range(0, num_k):
        cols = kb * BLOCK_K + tl.arange(0, BLOCK_K).to(tl.int64)
        col_mask = cols < K
        c = tl.load(c_ptr + rows[:, None] * s_cm + cols[None, :] * s_ck,
                    mask=row_mask[:, None] & col_mask[None, :], other=0.0).to(tl.float32)
        p = tl.load(prev_ptr + cols * s_p, mask=col_mask, other=0.0).to(tl.float32)
        acc += tl.sum(c * p[None, :], axis=1)
    tl.store(lam_ptr + rows * s_l, (beta * acc).to(lam_ptr.dtype.element_ty), mask=row_mask)


def force_of_infection(contacts: torch.Tensor, prevalence: torch.Tensor, beta: float = 0.035,
                       BLOCK_M: int = 32, BLOCK_K: int = 64) -> torch.Tensor:
    M, K = contacts.shape
    lam = torch.empty((M,), dtype=contacts.dtype, device=contacts.device)
    if M == 0:
        return lam
    foi_kernel[(triton.cdiv(M, BLOCK_M),)](contacts, prevalence, lam, M, K, beta, contacts.stride(0),
                                          contacts.stride(1), prevalence.stride(0), lam.stride(0),
                                          BLOCK_M=BLOCK_M, BLOCK_K=BLOCK_K)
    return lam


def reference(contacts: torch.Tensor, prevalence: torch.Tensor, beta: float = 0.035) -> torch.Tensor:
    return beta * (contacts @ prevalence)


spec = kcheck.Spec(
    name="hx40_force_of_infection",
    kernel=force_of_infection,
    reference=reference,
    inputs=[kcheck.Tensor("M", "K", name="contacts"), kcheck.Tensor("K", name="prevalence")],
    dims={"M": kcheck.Dim(nominal=200), "K": kcheck.Dim(nominal=1000)},
    reduce=["K"],
    params={"beta": [0.035, 0.8]},
    configs=[{"BLOCK_M": 32, "BLOCK_K": 64}, {"BLOCK_M": 16, "BLOCK_K": 256}],
)
