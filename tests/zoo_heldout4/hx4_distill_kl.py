"""Distillation loss per row: KL(softmax(teacher) || softmax(student)) =
sum_j p_j (log p_j - log q_j) with p = softmax(teacher), q = softmax(student), returned per row in fp32.
One program per row, the row in one block (vocabulary slices up to 8192 wide); both log-sum-exps computed in fp32."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def kl_kernel(s_ptr, t_ptr, out_ptr, V, stride_s, stride_t, BLOCK_V: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_V)
    mask = cols < V
    s = tl.load(s_ptr + row * stride_s + cols, mask=mask, other=-float("inf")).to(tl.float32)
    t = tl.load(t_ptr + row * stride_t + cols, mask=mask, other=-float("inf")).to(tl.float32)
    t_max = tl.max(t, axis=0)
    t_exp = tl.exp(t - t_max)
    t_sum = tl.sum(t_exp, axis=0)
    log_p = t - t_max - tl.log(t_sum)
    p = t_exp / t_sum
    s_lse = tl.log(tl.sum(tl.exp(s), axis=0))
    log_q = s - s_lse
    kl = tl.sum(tl.where(mask, p * (log_p - log_q), 0.0), axis=0)
    tl.store(out_ptr + row, kl)


def distill_kl(student, teacher):
    M, V = student.shape
    out = torch.empty(M, dtype=torch.float32, device=student.device)
    if M == 0:
        return out
    if student.stride(1) != 1:
        student = student.contiguous()
    if teacher.stride(1) != 1:
        teacher = teacher.contiguous()
    kl_kernel[(M,)](student, teacher, out, V, student.stride(0), teacher.stride(0),
                    BLOCK_V=triton.next_power_of_2(V))
    return out


def reference(student, teacher):
    log_q = torch.log_softmax(student, dim=-1)
    log_p = torch.log_softmax(teacher, dim=-1)
    return torch.nn.functional.kl_div(log_q, log_p, reduction="none", log_target=True).sum(-1)


spec = kcheck.Spec(
    name="hx4_distill_kl",
    kernel=distill_kl,
    reference=reference,
    inputs=[kcheck.Tensor("M", "V", name="student"), kcheck.Tensor("M", "V", name="teacher")],
    dims={"M": kcheck.Dim(nominal=64), "V": kcheck.Dim(nominal=512, min=1, max=8192, real=())},
    reduce=["V"],
    output_dtypes=[torch.float32],
)

BUG_CLASS = "exp-overflow"
