"""Net species production rates of a reaction network (chemical kinetics): with r the [B, R] reaction rates of B
cells of a reacting-flow grid and S the [R, K] stoichiometric matrix (S[j, k]: moles of species k produced by
reaction j, negative when consumed),

    wdot[b, k] = sum_j r[b, j] S[j, k]          (wdot = r @ S)

A tiled contraction with tl.dot: BLOCK_B x BLOCK_K output tiles, the reactions walked in BLOCK_R steps, masks on
the three tails, fp32 accumulator, output in the input dtype; int64 offsets and any strides for both operands.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "index-transposition"


@triton.jit
def production_kernel(r_ptr, s_ptr, out_ptr, B, R, K, s_rb, s_rr, s_sr, s_sk, s_ob, s_ok,
                      BLOCK_B: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    tiles_k = tl.cdiv(K, BLOCK_K)
    pid_b = (pid // tiles_k).to(tl.int64)
    pid_k = (pid % tiles_k).to(tl.int64)
    rb = pid_b * BLOCK_B + tl.arange(0, BLOCK_B).to(tl.int64)
    rk = pid_k * BLOCK_K + tl.arange(0, BLOCK_K).to(tl.int64)
    acc = tl.zeros((BLOCK_B, BLOCK_K), dtype=tl.float32)
    for j0 in range(0, R, BLOCK_R):
        rj = j0 + tl.arange(0, BLOCK_R).to(tl.int64)
        rates = tl.load(r_ptr + rb[:, None] * s_rb + rj[None, :] * s_rr,
                        mask=(rb[:, None] < B) & (rj[None, :] < R), other=0.0)
        stoich = tl.load(s_ptr + rj[:, None] * s_sk + rk[None, :] * s_sr,
                         mask=(rj[:, None] < R) & (rk[None, :] < K), other=0.0)
        acc = tl.dot(rates, stoich, acc)
    tl.store(out_ptr + rb[:, None] * s_ob + rk[None, :] * s_ok, acc.to(out_ptr.dtype.element_ty),
             mask=(rb[:, None] < B) & (rk[None, :] < K))


def stoichiometric_production(rates: torch.Tensor, stoich: torch.Tensor, BLOCK_B: int = 64, BLOCK_R: int = 32,
                              BLOCK_K: int = 32) -> torch.Tensor:
    B, R = rates.shape
    R2, K = stoich.shape
    assert R == R2, f"rates has {R} reactions, the stoichiometric matrix {R2}"
    out = torch.empty((B, K), dtype=rates.dtype, device=rates.device)
    if B == 0 or K == 0:
        return out
    if R == 0:
        return out.zero_()
    grid = (triton.cdiv(B, BLOCK_B) * triton.cdiv(K, BLOCK_K),)
    production_kernel[grid](rates, stoich, out, B, R, K, rates.stride(0), rates.stride(1), stoich.stride(0),
                            stoich.stride(1), out.stride(0), out.stride(1),
                            BLOCK_B=BLOCK_B, BLOCK_R=BLOCK_R, BLOCK_K=BLOCK_K)
    return out


spec = kcheck.Spec(
    name="hx37_stoichiometric_production",
    kernel=stoichiometric_production,
    reference=torch.matmul,
    inputs=[kcheck.Tensor("B", "R", name="rates"), kcheck.Tensor("R", "K", name="stoichiometry")],
    dims={"B": kcheck.Dim(nominal=256), "R": kcheck.Dim(nominal=48), "K": kcheck.Dim(nominal=24)},
    dtypes=["tf32", "bf16", "fp16"],
    reduce=["R"],
    configs=[{"BLOCK_B": 64, "BLOCK_R": 32, "BLOCK_K": 32}, {"BLOCK_B": 32, "BLOCK_R": 16, "BLOCK_K": 16}],
    properties=[kcheck.props.linear(0)],
)
