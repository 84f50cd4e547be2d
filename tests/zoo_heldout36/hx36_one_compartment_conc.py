"""Pharmacokinetics: plasma concentration of an IV bolus in a one-compartment model, C(t) = C0 * exp(-ke * t),
for a batch of patients (rows: initial concentration C0 and elimination rate ke) over a shared sampling schedule
(columns: times t). One program computes a [BLOCK_P, BLOCK_T] tile in fp32; strides honoured, int64 offsets."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "edge-guard"


@triton.jit
def concentration_kernel(c0_ptr, ke_ptr, t_ptr, out_ptr, P, T, s_c0, s_ke, s_t, s_op, s_ot,
                         BLOCK_P: tl.constexpr, BLOCK_T: tl.constexpr):
    pid_p = tl.program_id(0).to(tl.int64)
    pid_t = tl.program_id(1).to(tl.int64)
    rows = pid_p * BLOCK_P + tl.arange(0, BLOCK_P).to(tl.int64)
    cols = pid_t * BLOCK_T + tl.arange(0, BLOCK_T).to(tl.int64)
    row_mask = rows < P
    col_mask = cols < T
    c0 = tl.load(c0_ptr + rows * s_c0, mask=row_mask, other=0.0).to(tl.float32)
    ke = tl.load(ke_ptr + rows * s_ke, mask=row_mask, other=0.0).to(tl.float32)
    t = tl.load(t_ptr + cols * s_t).to(tl.float32)
    conc = c0[:, None] * tl.exp(-ke[:, None] * t[None, :])
    mask = row_mask[:, None] & col_mask[None, :]
    tl.store(out_ptr + rows[:, None] * s_op + cols[None, :] * s_ot, conc.to(out_ptr.dtype.element_ty), mask=mask)


def one_compartment_conc(c0: torch.Tensor, ke: torch.Tensor, t: torch.Tensor, BLOCK_P: int = 16,
                         BLOCK_T: int = 64) -> torch.Tensor:
    P, T = c0.shape[0], t.shape[0]
    out = torch.empty((P, T), dtype=c0.dtype, device=c0.device)
    if P == 0 or T == 0:
        return out
    grid = (triton.cdiv(P, BLOCK_P), triton.cdiv(T, BLOCK_T))
    concentration_kernel[grid](c0, ke, t, out, P, T, c0.stride(0), ke.stride(0), t.stride(0), out.stride(0),
                               out.stride(1), BLOCK_P=BLOCK_P, BLOCK_T=BLOCK_T)
    return out


def reference(c0: torch.Tensor, ke: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    return c0[:, None] * torch.exp(-ke[:, None] * t[None, :])


spec = kcheck.Spec(
    name="hx36_one_compartment_conc",
    kernel=one_compartment_conc,
    reference=reference,
    inputs=[kcheck.Tensor("P", name="c0"), kcheck.Tensor("P", name="ke"), kcheck.Tensor("T", name="t")],
    dims={"P": kcheck.Dim(nominal=96), "T": kcheck.Dim(nominal=200)},
    configs=[{"BLOCK_P": 16, "BLOCK_T": 64}, {"BLOCK_P": 32, "BLOCK_T": 32}],
    properties=[kcheck.props.linear(0)],
)
