import math
import re
from pathlib import Path

import pytest
import torch

from kcheck import PRECISIONS
from kcheck.compare import compare, rms, tolerance_for

DOC = Path(__file__).resolve().parent.parent / "docs" / "tolerances.md"


def test_seed_table_values():
    assert {n: p.rtol for n, p in PRECISIONS.items()} == {
        "fp64": 1e-10, "fp32": 1e-5, "tf32": 1e-3, "bf16": 1e-2, "fp16": 1e-2, "fp8e4m3": 5e-2, "fp8e5m2": 5e-2}


def test_docs_table_mirrors_the_data():
    rows = dict(re.findall(r"^\| `(\w+)` \| `[\w.]+` \| ([0-9.e-]+) \|", DOC.read_text(), re.M))
    assert rows and {k: float(v) for k, v in rows.items()} == {n: p.rtol for n, p in PRECISIONS.items()}


def test_table_value_when_nothing_widens_it():
    tol = tolerance_for("fp32", torch.float32, 1, 2.0)
    assert tol.rtol == 1e-5 and tol.atol == pytest.approx(2e-5)


def test_accumulation_widens_with_sqrt_n():
    n = 2**20
    tol = tolerance_for("fp32", torch.float32, n, 1.0)
    assert tol.rtol == pytest.approx(math.sqrt(n) * torch.finfo(torch.float32).eps)
    assert "reduction of 1048576 terms" in tol.source
    # a K=4096 bf16 GEMM accumulated in fp32 stays under the bf16 table value
    assert tolerance_for("bf16", torch.bfloat16, 4096, 1.0).rtol == 1e-2


def test_fp8_raised_to_one_ulp_of_the_output():
    tol = tolerance_for("fp8e4m3", torch.float8_e4m3fn, 1, 1.0)
    assert tol.rtol == 0.125 and "one ulp" in tol.source


def test_integer_outputs_are_exact_and_user_values_win():
    assert tolerance_for("fp32", torch.int64, 10, 1.0).exact
    tol = tolerance_for("bf16", torch.bfloat16, 1, 3.0, rtol={"bf16": 0.05}, atol=0.5)
    assert (tol.rtol, tol.atol) == (0.05, 0.5)


def test_rms_ignores_nonfinite_and_works_in_chunks():
    x = torch.tensor([3.0, 4.0, float("nan"), float("inf")])
    assert rms(x) == pytest.approx(math.sqrt(12.5))
    assert rms(torch.arange(10.0), chunk=3) == pytest.approx(float(torch.arange(10.0).pow(2).mean().sqrt()))


def test_rms_of_values_whose_squares_overflow_stays_finite():
    # squares past 1e154 overflow float64: an infinite rms made atol infinite, and any finite value passed
    e = torch.tensor([1e200, -1e200, 3.0, float("inf")], dtype=torch.float64)
    assert rms(e) == pytest.approx(1e200 * math.sqrt(2 / 3))
    assert rms(e, chunk=1) == pytest.approx(rms(e))
    tol = tolerance_for("fp64", torch.float64, 1, rms(e))
    assert math.isfinite(tol.atol)
    wrong = e.clone()
    wrong[0] *= 1.1  # 10% off, at the largest element
    assert not compare("o", wrong, e, tol).passed
