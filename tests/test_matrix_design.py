"""The matrix's design beyond one factor at a time: the pairwise covering design, every precision at the longest
reduction and the largest size the device allows, and past-2**31 cases where a row's *start* overflows."""

from __future__ import annotations

import itertools

import pytest
import torch

import kcheck
from kcheck._device import DeviceInfo
from kcheck.cases._covering import pairwise
from kcheck.cases._sizes import INT32_LIMIT

CPU = DeviceInfo("cpu", "CPU", 24 * 2**30, 20 * 2**30, None, 132, True)
H200 = DeviceInfo("cuda", "NVIDIA H200", 141 * 2**30, 140 * 2**30, (9, 0), 132, False)


def _pairs(rows, factors):
    return {((a, r[a]), (b, r[b])) for r in rows for a, b in itertools.combinations(factors, 2)}


def test_pairwise_covers_every_pair_in_far_fewer_rows_than_the_product():
    factors = {"M": [1, 17, 129, 128, 2880], "N": [1, 17, 129, 128, 4096], "precision": ["fp32", "bf16", "fp16"],
               "pattern": ["randn", "zeros", "large"], "layout": ["contiguous", "strided"]}
    design = pairwise(factors, seed=7, budget=1000)
    want = {((a, va), (b, vb)) for a, b in itertools.combinations(factors, 2) for va in factors[a] for vb in factors[b]}
    assert _pairs(design.rows, factors) >= want
    assert design.covered == design.pairs == len(want) and design.infeasible == 0
    assert len(design.rows) <= 40  # the product is 5*5*3*3*2 = 450; a pairwise design needs about 25


def test_pairwise_is_reproducible_and_respects_its_budget_and_feasibility():
    factors = {"M": [1, 17, 2880], "N": [1, 17, 128256], "precision": ["fp32", "bf16"]}

    def small(row):
        return row["M"] * row["N"] <= 2880 * 17

    a = pairwise(factors, seed=3, budget=100, feasible=small)
    assert a == pairwise(factors, seed=3, budget=100, feasible=small)
    assert all(small(r) for r in a.rows)
    assert a.infeasible >= 1  # (M=2880, N=128256) cannot run
    assert ((("M", 2880), ("N", 128256))) not in _pairs(a.rows, factors)
    assert len(pairwise(factors, seed=3, budget=4).rows) == 4


def _reduction_spec():
    return kcheck.Spec(name="rsum", kernel=lambda x: x.sum(1), reference=lambda x: x.sum(1),
                       inputs=[kcheck.Tensor("M", "N")], reduce=["N"], dtypes=["fp32", "bf16", "fp16"],
                       dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1024, real=(2880, 16384))})


@pytest.mark.parametrize("device", [CPU, H200], ids=["cpu", "h200"])
def test_every_precision_runs_at_the_longest_reduction_and_at_the_largest_size(device):
    cases = kcheck.matrix(_reduction_spec(), device=device)
    for p in ("fp32", "bf16", "fp16"):  # (a case reached from two axes keeps the first axis's name)
        assert [c for c in cases if c.precision == p and c.sizes["N"] == 16384 and c.skip is None]
        big = [c for c in cases if c.axis == "big" and c.precision == p]
        assert big and big[0].skip is None and big[0].sizes["M"] > 256  # past bf16's exact integers
    # the one-factor-at-a-time axes alone never ran fp16 at N=16384
    assert not [c for c in cases if c.axis in ("size", "real", "dtype") and c.precision == "fp16"
                and c.sizes["N"] == 16384]


def test_pairwise_cases_cross_precision_with_sizes_and_quick_tier_has_none():
    spec = _reduction_spec()
    cases = kcheck.matrix(spec, device=CPU)
    pw = [c for c in cases if c.axis == "pairwise"]
    assert pw and all(c.skip is None for c in pw)
    assert pw[0].notes[0].startswith("pairwise design: ")
    # some low precision meets a size other than nominal and 129
    assert any(c.precision != "fp32" and c.sizes["N"] not in (1024, 129) for c in pw)
    assert [c.id for c in cases] == [c.id for c in kcheck.matrix(spec, device=CPU)]  # seeded
    quick = kcheck.matrix(spec, device=CPU, tier="quick")
    assert not [c for c in quick if c.axis in ("pairwise", "long", "big")]


def test_the_default_matrix_grows_by_at_most_half_on_the_examples():
    import importlib

    # counts of the one-factor-at-a-time matrix these examples had before the pairwise, long and big cases
    before = {"vector_add": 42, "sum_reduction": 59, "softmax": 59, "layernorm": 59, "gemm": 72}
    for name, count in before.items():
        spec = importlib.import_module(name).spec
        now = kcheck.matrix(spec, device=H200)
        assert len(now) <= 1.5 * count, (name, len(now))
        old_axes = [c for c in now if c.axis not in ("pairwise", "long", "big")]
        assert len(old_axes) <= count + 3  # + the past-2**31 row cases


def test_a_large_case_makes_the_last_row_start_past_2_31():
    spec = kcheck.Spec(name="ce", kernel=lambda x, t: x.max(1).values, reference=lambda x, t: x.max(1).values,
                       inputs=[kcheck.Tensor("M", "V"), kcheck.Index("M", high="V")],
                       dims={"M": kcheck.Dim(nominal=64), "V": kcheck.Dim(nominal=4096)}, dtypes=["fp32"])
    large = [c for c in kcheck.matrix(spec, device=H200) if c.axis == "large"]
    flat = [c for c in large if c.sizes["M"] == 64]
    rows = [c for c in large if c.sizes["V"] == 4096]
    assert flat and (64 - 1) * flat[0].sizes["V"] < INT32_LIMIT  # the cheap case grows V: no row start wraps
    assert rows and (rows[0].sizes["M"] - 1) * 4096 >= INT32_LIMIT and rows[0].skip is None
    assert "starts at offset" in rows[0].notes[0]
    on_cpu = [c for c in kcheck.matrix(spec, device=CPU) if c.axis == "large"]
    assert on_cpu and all(c.skip for c in on_cpu)  # said plainly: a GPU case


def test_no_duplicate_row_case_when_the_flat_case_already_grows_the_rows():
    spec = kcheck.Spec(name="sq", kernel=torch.neg, reference=torch.neg, inputs=[kcheck.Tensor("M", "N")],
                       dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=64)}, dtypes=["fp32"])
    large = [c for c in kcheck.matrix(spec, device=H200) if c.axis == "large"]
    assert len(large) == 1 and (large[0].sizes["M"] - 1) * 64 >= INT32_LIMIT


def test_pairwise_reuses_compile_keys_it_already_has():
    """Each new compile key costs a GPU compile: among candidates, rows whose key earlier cases have are kept."""
    factors = {"a": [1, 2, 3, 4], "b": ["x", "y", "z"], "c": [0, 1, 2], "d": ["p", "q"]}

    def key(row):
        return (row["a"], row["b"], row["c"])

    earlier = {key(r) for r in pairwise(factors, seed=1, budget=100).rows}
    plain = pairwise(factors, seed=2, budget=100)
    keyed = pairwise(factors, seed=2, budget=100, key=key, seen=set(earlier))
    assert keyed.covered == keyed.pairs  # still every pair
    new_plain = {key(r) for r in plain.rows} - earlier
    new_keyed = {key(r) for r in keyed.rows} - earlier
    assert len(new_keyed) < len(new_plain)


def test_a_row_takes_a_known_key_where_that_covers_as_many_new_pairs():
    """A size whose pairs are all covered already may take another size of a known compile key (what Triton
    specializes on: 1, a multiple of 16, or neither), sparing a compile and losing no pair."""
    from kcheck.cases._covering import _pairs_of, _toward_known

    factors = {"n": [16, 17, 32, 33], "precision": ["fp32", "bf16"], "pattern": ["randn", "large"]}
    names = list(factors)

    def key(row):
        return (row["precision"], 16 if row["n"] % 16 == 0 else 0)

    import random

    # the pairs still to cover are the pattern's with the precision; every pair of n is covered already
    todo = {(("precision", "bf16"), ("pattern", "large"))}
    seen = {("bf16", 16)}
    row = {"n": 17, "precision": "bf16", "pattern": "large"}
    better = _toward_known(row, factors, names, todo, lambda r: True, key, seen, random.Random(0))
    assert key(better) in seen and better["precision"] == "bf16" and better["pattern"] == "large"
    assert len(_pairs_of(better, names) & todo) == len(_pairs_of(row, names) & todo)
    # a change that would lose two new pairs is not made (one may be left for a later row)
    todo = {(("n", 17), ("precision", "bf16")), (("n", 17), ("pattern", "large")),
            (("precision", "bf16"), ("pattern", "large"))}
    assert _toward_known(row, factors, names, todo, lambda r: True, key, seen, random.Random(0)) == row


def test_the_pairwise_cases_of_the_examples_add_few_compile_keys():
    """On an H200, the pairwise cases of the shipped Triton examples add at most half the compile keys the other
    cases have (a key is a compile: most of a cold run's time)."""
    from kcheck._discover import discover
    from kcheck.cases import build_matrix

    h200 = DeviceInfo("cuda", "H200", 140 * 2**30, 139 * 2**30, (9, 0), 132, False)
    other = pair = 0
    for name in ("gemm", "layernorm", "softmax", "sum_reduction", "vector_add"):
        (found,) = discover(f"examples/{name}.py")
        for spec in found.specs:
            seen: set = set()
            for case in build_matrix(spec, h200):
                k = case.compile_key
                if case.skip is None and k not in seen:
                    seen.add(k)
                    pair += case.axis == "pairwise"
                    other += case.axis != "pairwise"
    assert pair <= other / 2, (pair, other)


#: Peak device memory (torch.cuda.max_memory_allocated, GiB) of past-2**31 cases of the examples, measured on an
#: H200 with scripts/gpu/case_profile.py (docs/gpu-validation.md, runs 39 and 41).
_MEASURED_PEAKS = [("vector_add", {"N": 2147483649}, 64.0), ("softmax", {"M": 128, "N": 16777217}, 45.6),
                   ("softmax", {"M": 2097153, "N": 1024}, 45.6), ("layernorm", {"M": 2097153, "N": 1024}, 45.6),
                   ("gemm", {"M": 16777217, "K": 128, "N": 128}, 40.0),
                   ("gemm", {"M": 128, "K": 16777217, "N": 128}, 48.0),
                   ("cuda_gemm", {"M": 16777217, "K": 128, "N": 128}, 45.6),
                   ("cuda_transpose", {"M": 4194305, "N": 512}, 45.6),
                   ("train_cross_entropy", {"T": 4194305, "V": 512}, 72.2),
                   ("train_rmsnorm", {"M": 8388609, "N": 256}, 130.1),
                   ("train_rope", {"T": 11184811, "H": 3, "D": 64}, 138.0)]


@pytest.mark.parametrize(("name", "dims", "peak"), _MEASURED_PEAKS, ids=[f"{n}-{next(iter(d.values()))}"
                                                                          for n, d, _ in _MEASURED_PEAKS])
def test_a_large_cases_memory_estimate_covers_its_measured_peak_and_its_floor_stays_below(name, dims, peak):
    # the floor decides whether a past-2**31 case runs on a GPU at all: above the peak, a case that fits is skipped
    # (an 80 GiB GPU skipped softmax's at an estimated 83 GiB, which needs 45.6; the H200 train_rope's at 127 with
    # 85% on top, which needs 138); the estimate is what the pool counts for cases side by side
    from kcheck._discover import discover
    from kcheck.cases._matrix import estimate_bytes, peak_bytes

    (found,) = discover(f"examples/{name}.py")
    (spec,) = found.specs
    certain = (peak_bytes(spec, dims, 4, floor=True) - 2**30) / 2**30  # less the context's allowance
    assert certain <= 1.01 * peak  # vector_add's peak is exactly its reference's: 2 inputs, 2 copies, 1 result
    assert peak <= estimate_bytes(spec, dims, 4) / 2**30 <= 1.4 * peak
