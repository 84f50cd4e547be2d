"""Small planted bugs written in torch (fast on a CPU) for the debugger's tests: each Spec's kernel carries one bug
from the bug classes (BUG_CLASSES), in the form that passes a casual square randn test where the class allows it."""

import torch

import kcheck

DIMS = {"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=64, real=())}


def _accumulate_into_output(x: torch.Tensor, out: torch.Tensor) -> None:
    out += x.sum(-1)  # BUG: assumes out starts at zero


uninitialized = kcheck.Spec(name="uninitialized", kernel=_accumulate_into_output, reference=lambda x: x.sum(-1),
                            inputs=[kcheck.Tensor("M", "N")], outputs=[kcheck.Tensor("M")], dims=DIMS,
                            dtypes=["fp32"], reduce=["N"])


def _scale_wrong_axis(x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    m, n = x.shape
    idx = (torch.arange(m * n, device=x.device) % m % max(n, 1)).view(m, n)  # BUG: % M where % N is meant
    return x * s[idx] if n else x.clone()


wrong_axis = kcheck.Spec(name="wrong_axis", kernel=_scale_wrong_axis, reference=lambda x, s: x * s,
                         inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("N")], dims=DIMS, dtypes=["fp32"])

column_sums = kcheck.Spec(name="column_sums", kernel=lambda x: x.sum(0),  # BUG: sums columns, rows are meant
                          reference=lambda x: x.sum(-1), inputs=[kcheck.Tensor("N", "N")],
                          dims={"N": kcheck.Dim(nominal=64, real=())}, dtypes=["fp32"], reduce=["N"])


def _softmax_no_max(x: torch.Tensor) -> torch.Tensor:
    e = torch.exp(x)  # BUG: no max subtraction
    return e / e.sum(-1, keepdim=True)


softmax_no_max = kcheck.Spec(name="softmax_no_max", kernel=_softmax_no_max, reference=lambda x: x.softmax(-1),
                             inputs=[kcheck.Tensor("M", "N")], dims=DIMS, dtypes=["fp32"])


def _normalize_no_eps(x: torch.Tensor) -> torch.Tensor:
    return x / x.abs().sum(-1, keepdim=True)  # BUG: no clamp of the denominator


normalize_no_eps = kcheck.Spec(name="normalize_no_eps", kernel=_normalize_no_eps,
                               reference=lambda x: torch.nn.functional.normalize(x, p=1.0, dim=-1),
                               inputs=[kcheck.Tensor("M", "N")], dims=DIMS, dtypes=["fp32"], reduce=["N"])

def _normalize_no_eps_one_block(x: torch.Tensor) -> torch.Tensor:
    if x.shape[-1] > 2048:  # a one-block-per-row launcher, as Triton's: past its block limit it refuses the shape
        raise ValueError(f"N={x.shape[-1]} exceeds the block limit (2048)")
    return x / x.abs().sum(-1, keepdim=True)  # BUG: no clamp of the denominator


normalize_no_eps_one_block = kcheck.Spec(
    name="normalize_no_eps_one_block", kernel=_normalize_no_eps_one_block,
    reference=lambda x: torch.nn.functional.normalize(x, p=1.0, dim=-1), inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=64, real=(4096,))}, dtypes=["fp32"],
    reduce=["N"])

correct = kcheck.Spec(name="correct", kernel=lambda x: x * 2, reference=lambda x: x * 2,
                      inputs=[kcheck.Tensor("M", "N")], dims=DIMS, dtypes=["fp32"])


def _tiled_scale(x: torch.Tensor, BLOCK: int = 32) -> torch.Tensor:
    out = x * 2
    if BLOCK == 16 and x.shape[-1] % 16:  # BUG: the 16-wide tiling forgets the ragged last tile
        out[..., -(x.shape[-1] % 16):] = 0
    return out


config_bug = kcheck.Spec(name="config_bug", kernel=_tiled_scale, reference=lambda x: x * 2,
                         inputs=[kcheck.Tensor("M", "N")], dims=DIMS, dtypes=["fp32"],
                         configs=[{"BLOCK": 32}, {"BLOCK": 16}])

uninitialized_two_precisions = kcheck.Spec(
    name="uninitialized_two_precisions", kernel=_accumulate_into_output, reference=lambda x: x.sum(-1),
    inputs=[kcheck.Tensor("M", "N")], outputs=[kcheck.Tensor("M")], dims=DIMS, dtypes=["fp32", "fp16"], reduce=["N"])


def _ignores_strides(x: torch.Tensor) -> torch.Tensor:
    m, n = x.shape
    dense = torch.as_strided(x, (m, n), (n, 1), x.storage_offset())  # BUG: assumes a row pitch of n
    return dense * 2


ignores_strides = kcheck.Spec(name="ignores_strides", kernel=_ignores_strides, reference=lambda x: x * 2,
                              inputs=[kcheck.Tensor("M", "N")], dims=DIMS, dtypes=["fp32"])


def _refuses_ragged(x: torch.Tensor) -> torch.Tensor:
    if x.shape[-1] % 16:
        raise ValueError(f"N={x.shape[-1]} is not a multiple of the block (16)")  # BUG: no tail path
    return x * 2


refuses_ragged = kcheck.Spec(name="refuses_ragged", kernel=_refuses_ragged, reference=lambda x: x * 2,
                             inputs=[kcheck.Tensor("M", "N")], dims=DIMS, dtypes=["fp32"])
