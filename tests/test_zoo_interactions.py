"""Planted bugs that need two factors at once: the one-factor-at-a-time axes pass them, the long, big and pairwise
cases fail them (tests/zoo_interactions; the int32 row-start bug needs a GPU's past-2**31 case)."""

from __future__ import annotations

import importlib

import pytest

import kcheck
from kcheck import Status

NEW_AXES = ("long", "big", "pairwise")


def _split(name: str, precision: str) -> tuple[list[str], list[str]]:
    spec = importlib.import_module(f"zoo_interactions.{name}").spec
    cases = [c for c in kcheck.matrix(spec, large=False) if c.precision == precision and c.skip is None]
    return [c.id for c in cases if c.axis in NEW_AXES], [c.id for c in cases if c.axis not in NEW_AXES]


@pytest.mark.interpreter
@pytest.mark.parametrize("name", ["fp16_chunked_running_sum", "bf16_position_index"])
def test_only_the_cases_that_cross_two_factors_catch_it(name):
    spec = importlib.import_module(f"zoo_interactions.{name}").spec
    new, old = _split(name, "fp16")
    assert new and old
    crossed = kcheck.check(spec, cases=new, large=False)
    assert any(c.status is Status.FAILED for c in crossed.cases), kcheck.format_report(crossed)
    one_at_a_time = kcheck.check(spec, cases=old, large=False)
    assert one_at_a_time.passed, kcheck.format_report(one_at_a_time)


def test_the_int32_row_start_bug_gets_a_case_where_the_last_row_starts_past_2_31():
    from kcheck._device import DeviceInfo
    from kcheck.cases._sizes import INT32_LIMIT

    h200 = DeviceInfo("cuda", "NVIDIA H200", 141 * 2**30, 140 * 2**30, (9, 0), 132, False)
    spec = importlib.import_module("zoo_interactions.int32_row_offset").spec
    large = [c for c in kcheck.matrix(spec, device=h200) if c.axis == "large" and c.skip is None]
    assert any((c.sizes["M"] - 1) * c.sizes["V"] >= INT32_LIMIT for c in large)
