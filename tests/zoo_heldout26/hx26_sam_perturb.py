"""The ascent step of Sharpness-Aware Minimization (Foret et al.), in place on the parameters:

    p <- p + rho * g / (||g||_2 + 1e-12)

over the whole parameter tensor. Two launches: per-program partial sums of g^2 (fp32), then an update in which every
program adds up the partials itself and applies the step to its BLOCK elements. The kernels walk flat contiguous
memory; a non-contiguous parameter is updated through a contiguous copy that is written back.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "no-op"


@triton.jit
def sumsq_partial_kernel(g_ptr, part_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    g = tl.load(g_ptr + offs, mask=offs < n, other=0.0).to(tl.float32)
    tl.store(part_ptr + pid, tl.sum(g * g, axis=0))


@triton.jit
def sam_step_kernel(p_ptr, g_ptr, part_ptr, n, n_parts, rho, BLOCK: tl.constexpr, PART_BLOCK: tl.constexpr):
    acc = tl.zeros([PART_BLOCK], dtype=tl.float32)
    for start in range(0, n_parts, PART_BLOCK):
        idx = start + tl.arange(0, PART_BLOCK)
        acc += tl.load(part_ptr + idx, mask=idx < n_parts, other=0.0)
    scale = rho / (tl.sqrt(tl.sum(acc, axis=0)) + 1e-12)
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    ok = offs < n
    p = tl.load(p_ptr + offs, mask=ok, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=ok, other=0.0).to(tl.float32)
    tl.store(p_ptr + offs, (p + scale * g).to(p_ptr.dtype.element_ty), mask=ok)


def sam_perturb_(p: torch.Tensor, g: torch.Tensor, rho: float = 0.05, BLOCK: int = 1024) -> torch.Tensor:
    n = p.numel()
    if n == 0:
        return p
    pw = p if p.is_contiguous() else p.contiguous()
    gc = g.contiguous()
    n_parts = triton.cdiv(n, BLOCK)
    part = torch.empty((n_parts,), dtype=torch.float32, device=p.device)
    sumsq_partial_kernel[(n_parts,)](gc, part, n, BLOCK=BLOCK)
    sam_step_kernel[(n_parts,)](pw, gc, part, n, n_parts, rho, BLOCK=BLOCK, PART_BLOCK=256)
    if not pw.is_contiguous():
        p.copy_(pw)
    return p


def reference(p: torch.Tensor, g: torch.Tensor, rho: float = 0.05) -> torch.Tensor:
    return p + rho * g / (g.norm() + 1e-12)


spec = kcheck.Spec(
    name="hx26_sam_perturb",
    kernel=sam_perturb_,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="param", mutated=True), kcheck.Tensor("M", "N", name="grad")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=200)},
    params={"rho": [0.05, 0.5]},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)
