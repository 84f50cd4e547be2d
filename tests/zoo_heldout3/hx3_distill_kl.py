"""Per-row distillation loss KL(softmax(t) || softmax(s)) between teacher logits t and student logits s (M, N):
out[m] = sum_n p_n (log p_n - log q_n), p = softmax(t[m]), q = softmax(s[m]), as
`F.kl_div(log_softmax(s), log_softmax(t), log_target=True, reduction="none").sum(-1)`. One program per row, the whole
row (N <= 32768) in one tile, max-subtracted log-softmax in fp32."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def distill_kl_kernel(t_ptr, s_ptr, out_ptr, N, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    t = tl.load(t_ptr + row * N + cols, mask=mask, other=-float("inf")).to(tl.float32)
    s = tl.load(s_ptr + row * N + cols, mask=mask, other=-float("inf")).to(tl.float32)
    t_max = tl.max(t, axis=0)
    s_max = tl.max(s, axis=0)
    t_shift = t - t_max
    s_shift = s - s_max
    log_p = t_shift - tl.log(tl.sum(tl.where(mask, tl.exp(t_shift), 0.0), axis=0))
    log_q = s_shift - tl.log(tl.sum(tl.where(mask, tl.exp(s_shift), 0.0), axis=0))
    kl = tl.where(mask, tl.exp(log_p) * (log_p - log_q), 0.0)
    tl.store(out_ptr + row, tl.sum(kl, axis=0).to(out_ptr.dtype.element_ty))


def distill_kl(teacher: torch.Tensor, student: torch.Tensor) -> torch.Tensor:
    M, N = teacher.shape
    out = torch.empty(M, dtype=teacher.dtype, device=teacher.device)
    if M == 0:
        return out
    if N == 0:
        return out.zero_()
    distill_kl_kernel[(M,)](teacher, student, out, N, BLOCK_N=triton.next_power_of_2(N))
    return out


def reference(teacher: torch.Tensor, student: torch.Tensor) -> torch.Tensor:
    log_p = torch.log_softmax(teacher, dim=-1)
    log_q = torch.log_softmax(student, dim=-1)
    return (log_p.exp() * (log_p - log_q)).sum(-1)


spec = kcheck.Spec(
    name="hx3_distill_kl",
    kernel=distill_kl,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="teacher"), kcheck.Tensor("M", "N", name="student")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=4096, max=32768)},
    reduce=["N"],
)

BUG_CLASS = "stride-assumption"
