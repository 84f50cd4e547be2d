"""On a busy machine a correct kernel still passes and a hung one is still a hang.

Two CPU-bound processes run beside kcheck for the whole test (on the 2-core machines CI uses, the machine is then
oversubscribed twice over), while it checks the shipped examples with the README's command and a planted hang.
Slow tier: several minutes.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

HANG = """
import time, torch, kcheck

def stuck_on_odd(x):
    if x.numel() % 2:
        while True:
            time.sleep(0.05)
    return -x

spec = kcheck.Spec(name="stuck_on_odd", kernel=stuck_on_odd, reference=torch.neg, inputs=[kcheck.Tensor("N")],
                   dtypes=["fp32"], patterns=["randn"], layouts=["contiguous"], seeds=1,
                   dims={"N": kcheck.Dim(nominal=64, sizes=(64, 33), real=())})
"""


@pytest.fixture
def busy() -> Iterator[None]:
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        yield
    finally:
        for p in burners:
            p.kill()
            p.wait()


@pytest.mark.slow
def test_examples_pass_on_a_loaded_machine_and_a_hang_is_still_a_hang(busy, tmp_path):
    out = tmp_path / "examples.json"
    run = subprocess.run([sys.executable, "-m", "kcheck", "check", "examples/", "-q", "--json", str(out)],
                         cwd=ROOT, capture_output=True, text=True, timeout=3600)
    report = json.loads(out.read_text())
    timeouts = [c["case"]["id"] for s in report["specs"] for c in s["cases"] if c["status"] == "timeout"]
    assert run.returncode == 0, (timeouts, run.stdout[-3000:], run.stderr[-3000:])
    assert report["complete"] and not timeouts

    (tmp_path / "stuck_spec.py").write_text(textwrap.dedent(HANG))
    hung = tmp_path / "hung.json"
    run = subprocess.run([sys.executable, "-m", "kcheck", "check", str(tmp_path / "stuck_spec.py"), "-q",
                          "--no-large", "--timeout", "5", "--json", str(hung)], capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 1, run.stdout[-3000:]
    cases = {c["case"]["id"]: c for s in json.loads(hung.read_text())["specs"] for c in s["cases"]}
    ran = [c for c in cases.values() if c["status"] != "skipped"]  # the past-2**31 case is off (--no-large)
    stuck = [c for c in ran if c["case"]["dims"]["N"] % 2]
    assert stuck and all(c["status"] == "timeout" for c in stuck)
    assert all(c["status"] == "passed" for c in ran if c["case"]["dims"]["N"] % 2 == 0)
