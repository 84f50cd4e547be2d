"""The bug zoo's score on this CPU must not fall below the last recorded figures (benchmarks/zoo_score.json).

Runs benchmarks/zoo.py's scoring (kcheck's default matrix on every planted bug and correct example, then the
debugger on each detected bug): about 4-5 minutes on a 2-core VM, so it is in the slow tier and CI runs it as its own
step (.ci/run).
"""

import importlib.util
import json
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
@pytest.mark.skipif(torch.cuda.is_available(), reason="the recorded figures are the CPU's (the H200's are in docs)")
def test_zoo_score_does_not_regress(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("zoo_bench", ROOT / "benchmarks" / "zoo.py")
    zoo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(zoo)
    monkeypatch.chdir(tmp_path)
    rows = zoo.score(seeds=2, budget=90, quiet=True)
    tot = zoo.totals(rows)
    recorded = json.loads((ROOT / "benchmarks" / "zoo_score.json").read_text())["cpu"]
    table = zoo.markdown(rows, tot, "CPU (this run)")
    assert tot["kcheck_false_positives"] == 0, table
    assert tot["detection_rate"] >= recorded["detection_rate"], table
    assert tot["diagnosis_accuracy"] >= recorded["diagnosis_accuracy"], table
    missed = [r["spec"] for r in rows if r["buggy"] and not r["gpu_only"] and not r["kcheck"]]
    assert missed == [], table  # every planted bug that can show here is detected
