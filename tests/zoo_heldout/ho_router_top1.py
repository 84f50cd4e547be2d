"""Top-1 mixture-of-experts router: for router logits (T, E), the chosen expert argmax_e logits[t, e] and its
softmax probability. One program per token, fp32 softmax, probability in the input dtype, index as int64."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "kernel-raises"
GPU_ONLY = False


@triton.jit
def _router_kernel(logits_ptr, prob_ptr, idx_ptr, stride_t, stride_e, E: tl.constexpr):
    t = tl.program_id(0).to(tl.int64)
    e = tl.arange(0, E)
    x = tl.load(logits_ptr + t * stride_t + e * stride_e).to(tl.float32)
    best = tl.argmax(x, axis=0)
    m = tl.max(x, axis=0)
    denom = tl.sum(tl.exp(x - m), axis=0)
    tl.store(prob_ptr + t, (1.0 / denom).to(prob_ptr.dtype.element_ty))
    tl.store(idx_ptr + t, best.to(tl.int64))


def route_top1(logits: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    T, E = logits.shape
    prob = torch.empty(T, dtype=logits.dtype, device=logits.device)
    idx = torch.empty(T, dtype=torch.int64, device=logits.device)
    if T == 0:
        return prob, idx
    _router_kernel[(T,)](logits, prob, idx, logits.stride(0), logits.stride(1), E=E)
    return prob, idx


def reference(logits: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.softmax(logits, dim=-1).amax(dim=-1), logits.argmax(dim=-1)


spec = kcheck.Spec(
    name="ho_router_top1",
    kernel=route_top1,
    reference=reference,
    inputs=[kcheck.Tensor("T", "E")],
    dims={"T": kcheck.Dim(nominal=256, real=()), "E": kcheck.Dim(nominal=64, min=1, real=(8, 128), large=False)},
    patterns=["randn", "zeros", "ones", "eye", "arange", "large", "tiny", "constant", "large_mean"],
)
