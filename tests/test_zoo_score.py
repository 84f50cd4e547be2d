"""The bug zoo's score on this CPU must not fall below the last recorded figures (benchmarks/zoo_score.json).

Runs benchmarks/zoo.py's scoring (kcheck's default matrix on every planted bug and correct example, then the
debugger on each detected bug) in two halves, one test each, so that ``pytest -n 2`` scores them at once: every
half must detect every bug it can show, rank the planted cause first as often as recorded (the recorded rates are
per bug, so a half is held to them as the whole is) and pass the zoo's correct kernels. The shipped examples are
left out here: their default matrix on this CPU is checked by tests/test_loaded_machine.py (the README's command,
on a loaded machine), and in the interpreter `gemm` alone took 16 minutes at two seeds. About 20 minutes of CPU
on a 2-core VM, so it is in the slow tier and CI runs it as its own step (.ci/run).
"""

import importlib.util
import json
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
@pytest.mark.skipif(torch.cuda.is_available(), reason="the recorded figures are the CPU's (the H200's are in docs)")
@pytest.mark.parametrize("part", [0, 1])
def test_zoo_score_does_not_regress(part, tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("zoo_bench", ROOT / "benchmarks" / "zoo.py")
    zoo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(zoo)
    monkeypatch.chdir(tmp_path)
    rows = zoo.score(seeds=2, budget=90, quiet=True, part=(part, 2), examples=False)
    tot = zoo.totals(rows)
    recorded = json.loads((ROOT / "benchmarks" / "zoo_score.json").read_text())["cpu"]
    table = zoo.markdown(rows, tot, f"CPU (this run, half {part + 1} of 2)")
    assert tot["kcheck_false_positives"] == 0, table
    assert tot["detection_rate"] >= recorded["detection_rate"], table
    assert tot["diagnosis_accuracy"] >= recorded["diagnosis_accuracy"], table
    missed = [r["spec"] for r in rows if r["buggy"] and not r["gpu_only"] and not r["kcheck"]]
    assert missed == [], table  # every planted bug that can show here is detected
