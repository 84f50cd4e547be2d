"""Repetition penalty of LLM sampling (CTRL, HF's RepetitionPenaltyLogitsProcessor), applied in place to the
next-token logits: for every token id already in the sequence, a positive logit is divided by the penalty and a
negative one multiplied by it.

logits is [B, V] (often a slice of a larger [B, S, V] buffer: the last position, so rows are strided); ids is
[B, T], the tokens seen so far, with repeats. One program per sequence gathers the logits of its T ids in one
block, penalizes them and scatters them back; a repeated id reads and writes the same value, so the block needs no
de-duplication. The whole window of seen ids is one block, hence T <= 4096.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "no-op"


@triton.jit
def repetition_penalty_kernel(logits_ptr, ids_ptr, T, penalty, stride_lb, stride_lv, stride_ib, stride_it,
                              BLOCK_T: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    t = tl.arange(0, BLOCK_T)
    ok = t < T
    ids = tl.load(ids_ptr + b * stride_ib + t * stride_it, mask=ok, other=0)
    ptrs = logits_ptr + b * stride_lb + ids * stride_lv
    x = tl.load(ptrs, mask=ok, other=0.0).to(tl.float32)
    y = tl.where(x < 0, x * penalty, x / penalty)
    tl.store(ptrs, y.to(logits_ptr.dtype.element_ty), mask=ok)


def repetition_penalty_(logits: torch.Tensor, ids: torch.Tensor, penalty: float = 1.2) -> torch.Tensor:
    B = logits.shape[0]
    T = ids.shape[1]
    if B == 0 or T == 0:
        return logits
    block_t = triton.next_power_of_2(T)
    x = logits.contiguous()
    repetition_penalty_kernel[(B,)](x, ids, T, penalty, x.stride(0), x.stride(1), ids.stride(0), ids.stride(1),
                                    BLOCK_T=block_t)
    return logits


def reference(logits: torch.Tensor, ids: torch.Tensor, penalty: float = 1.2) -> torch.Tensor:
    score = torch.gather(logits, 1, ids)
    score = torch.where(score < 0, score * penalty, score / penalty)
    return logits.clone().scatter_(1, ids, score)


spec = kcheck.Spec(
    name="hx14_repetition_penalty",
    kernel=repetition_penalty_,
    reference=reference,
    inputs=[kcheck.Tensor("B", "V", mutated=True, name="logits"), kcheck.Index("B", "T", high="V", name="ids")],
    dims={"B": kcheck.Dim(nominal=8), "V": kcheck.Dim(nominal=4096), "T": kcheck.Dim(nominal=256, max=4096)},
    params={"penalty": [1.2, 0.7]},
)
