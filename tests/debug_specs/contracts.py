"""Specs for tests/test_debug_contracts.py (kept out of test files: kcheck's pytest plugin collects module-level
Specs there as tests)."""

import torch

import kcheck


def _ragged_refused(x: torch.Tensor) -> torch.Tensor:
    n = x.shape[-1]
    if n % 16 or n > 512:  # the launcher's documented contract: Dim(multiple_of=16, max=512)
        raise ValueError(f"N={n} is outside the contract (a multiple of 16, at most 512)")
    out = x * 2
    if n >= 100:
        out[..., -1] = 0  # BUG: the last column is dropped from N = 100 on (112 in the contract)
    return out


constrained = kcheck.Spec(name="constrained", kernel=_ragged_refused, reference=lambda x: x * 2,
                          inputs=[kcheck.Tensor("M", "N")],
                          dims={"M": kcheck.Dim(nominal=64, real=()),
                                "N": kcheck.Dim(nominal=64, real=(), multiple_of=16, max=512)},
                          dtypes=["fp32"])


def _argmax_skips_last(x: torch.Tensor) -> torch.Tensor:
    return x[..., :-1].argmax(-1) if x.shape[-1] > 1 else x.argmax(-1)  # BUG: the last column is never a candidate


argmax = kcheck.Spec(name="argmax_skips_last", kernel=_argmax_skips_last, reference=lambda x: x.argmax(-1),
                     inputs=[kcheck.Tensor("M", "N")],
                     dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=64, real=())},
                     dtypes=["fp32"])
