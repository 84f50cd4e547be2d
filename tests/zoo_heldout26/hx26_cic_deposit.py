"""Cloud-in-cell charge deposition for a 1-D particle-in-cell code on a periodic grid of G cells (unit spacing):
a particle of charge q at position x (in cell units, 0 <= x < G) gives q * (1 - f) to cell i and q * f to cell
i + 1 (mod G), where i = floor(x) and f = x - i.

Positions are fp32 (the usual choice even when charges are stored in half precision); charges are in the case's
dtype. One program per BLOCK particles; both deposits are fp32 atomic adds into an fp32 density buffer, copied into
the output (the charges' dtype) at the end.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "uninitialized-accumulator"


@triton.jit
def cic_deposit_kernel(x_ptr, q_ptr, rho_ptr, P, G, s_x, s_q, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    ok = offs < P
    x = tl.load(x_ptr + offs * s_x, mask=ok, other=0.0)
    q = tl.load(q_ptr + offs * s_q, mask=ok, other=0.0).to(tl.float32)
    cell = tl.floor(x)
    f = x - cell
    i0 = cell.to(tl.int64) % G
    i1 = (i0 + 1) % G
    tl.atomic_add(rho_ptr + i0, q * (1.0 - f), mask=ok)
    tl.atomic_add(rho_ptr + i1, q * f, mask=ok)


def cic_deposit(x: torch.Tensor, q: torch.Tensor, G: int, rho: torch.Tensor, BLOCK: int = 512) -> None:
    P = q.shape[0]
    acc = torch.empty((G,), dtype=torch.float32, device=q.device)
    if P and G:
        cic_deposit_kernel[(triton.cdiv(P, BLOCK),)](x, q, acc, P, G, x.stride(0), q.stride(0), BLOCK=BLOCK)
    rho.copy_(acc)


def reference(x: torch.Tensor, q: torch.Tensor, G: int) -> torch.Tensor:
    cell = torch.floor(x)
    f = x - cell
    i0 = cell.long() % G
    i1 = (i0 + 1) % G
    rho = torch.zeros((G,), dtype=q.dtype, device=q.device)
    rho.index_add_(0, i0, q * (1.0 - f))
    rho.index_add_(0, i1, q * f)
    return rho


def positions(ctx: kcheck.CaseContext) -> torch.Tensor:
    P, G = ctx.dims["P"], ctx.dims["G"]
    x = ctx.rand(P, dtype=torch.float32) * G
    return torch.where(x < G, x, torch.zeros_like(x))  # rounding may give exactly G


spec = kcheck.Spec(
    name="hx26_cic_deposit",
    kernel=cic_deposit,
    reference=reference,
    inputs=[kcheck.Custom(positions, name="x", dims=("P",)), kcheck.Tensor("P", name="charge"),
            kcheck.Scalar(lambda d: d["G"], name="G")],
    dims={"P": kcheck.Dim(nominal=4096), "G": kcheck.Dim(nominal=64, min=1)},
    outputs=[kcheck.Tensor("G", name="rho")],
    reduce=["P"],
    configs=[{"BLOCK": 512}, {"BLOCK": 64}],
)
