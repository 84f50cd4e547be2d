"""kcheck.evaluation: each cheat in examples/eval is flagged with its reason; honest candidates pass; a candidate
that raises, crashes or hangs is a verdict, not a traceback. Cheats marked gpu_only in examples/eval/expected.json
need a GPU (side streams, allocator memory) and run in the gpu tier."""

from __future__ import annotations

import argparse
import json
import textwrap
from pathlib import Path

import pytest
import torch

import kcheck
from kcheck.evaluation import CheckKind, Outcome, add_cli, evaluate, format_evaluation, run_cli

EVAL = Path(__file__).resolve().parent.parent / "examples" / "eval"
EXPECTED: dict[str, dict[str, dict]] = json.loads((EVAL / "expected.json").read_text())
CASES = [(ref, cand, want) for ref, cands in EXPECTED.items() for cand, want in cands.items()]


def _ids(case: tuple) -> str:
    return case[1].removesuffix(".py")


def _judge(ev, want: dict) -> None:
    text = format_evaluation(ev)
    if want["expect"] == "PASS":
        assert ev.passed, text
        return
    assert not ev.passed, text
    found = {k.value for k in ev.failed_kinds}
    expect = set(want["expect"])
    if want.get("any"):
        assert found & expect, f"wanted one of {expect}, found {found}\n{text}"
    else:
        assert expect <= found, f"wanted {expect}, found {found}\n{text}"


@pytest.mark.parametrize("case", [c for c in CASES if not c[2].get("gpu_only")], ids=_ids)
def test_candidate_flagged_with_its_reason(case: tuple) -> None:
    ref, cand, want = case
    ev = evaluate(EVAL / cand, EVAL / ref, seeds=2, trials=1, isolate=False)
    _judge(ev, want)


@pytest.mark.gpu
@pytest.mark.parametrize("case", [c for c in CASES if c[2].get("gpu_only")], ids=_ids)
def test_gpu_only_cheat_flagged(case: tuple) -> None:
    ref, cand, want = case
    _judge(evaluate(EVAL / cand, EVAL / ref, seeds=2, trials=1), want)


@pytest.mark.gpu
def test_stale_cheat_passes_correctness_without_poisoning() -> None:
    """The unhooked stale-memory cheat really reads the reference's freed result: without poisoning the freed
    memory, its outputs are right; with it, they are poison."""
    ev = evaluate(EVAL / "cheat_stale_unhooked.py", EVAL / "problem_matmul_bias_relu.py", seeds=1, trials=1,
                  timing=False,
                  poison=False)
    correct = ev.check(CheckKind.CORRECTNESS)
    assert correct is not None and correct.outcome is Outcome.PASS, format_evaluation(ev)


def test_the_timer_cheat_is_undone_in_the_callers_process() -> None:
    sync, elapsed = torch.cuda.synchronize, torch.cuda.Event.elapsed_time
    ev = evaluate(EVAL / "cheat_timer.py", EVAL / "problem_matmul_bias_relu.py", seeds=1, trials=1, timing=False,
                  isolate=False)
    assert CheckKind.TIMER in ev.failed_kinds
    assert torch.cuda.synchronize is sync and torch.cuda.Event.elapsed_time is elapsed


def test_precision_names_bf16() -> None:
    ev = evaluate(EVAL / "cheat_bf16.py", EVAL / "problem_matmul_bias_relu.py", seeds=1, trials=1, timing=False,
                  isolate=False)
    check = ev.check(CheckKind.PRECISION)
    assert check is not None and check.outcome is Outcome.FAIL
    assert "computes in bf16" in check.summary, check.summary


def test_shape_variant_is_the_only_failure_of_the_shape_cheat() -> None:
    ev = evaluate(EVAL / "cheat_shape.py", EVAL / "problem_matmul_bias_relu.py", seeds=1, trials=1, timing=False,
                  isolate=False)
    assert ev.failed_kinds == {CheckKind.SHAPES}, format_evaluation(ev)
    assert "never written" in ev.check(CheckKind.SHAPES).summary  # type: ignore[union-attr]


def test_spec_reference(tmp_path: Path) -> None:
    """A kcheck Spec as the problem: the nominal case for the trials, the matrix's other shapes as variants."""
    ref = tmp_path / "spec_ref.py"
    ref.write_text(textwrap.dedent("""
        import torch, kcheck
        def double(x):
            return x * 2
        spec = kcheck.Spec(name="double", kernel=double, reference=lambda x: x * 2,
                           inputs=[kcheck.Tensor("M", "N")], dims={"M": kcheck.Dim(nominal=64),
                           "N": kcheck.Dim(nominal=48)}, dtypes=["fp32"])
    """))
    good, bad = tmp_path / "good.py", tmp_path / "bad.py"
    good.write_text("def kernel(x):\n    return x + x\n")
    bad.write_text("import torch\ndef kernel(x):\n    return x * 2 if x.shape == (64, 48) else torch.zeros_like(x)\n")
    ev = evaluate(good, ref, seeds=1, trials=1, timing=False, isolate=False)
    assert ev.passed, format_evaluation(ev)
    shapes = ev.check(CheckKind.SHAPES)
    assert shapes is not None and shapes.outcome is Outcome.PASS
    ev = evaluate(bad, ref, seeds=1, trials=1, timing=False, isolate=False)
    assert ev.failed_kinds == {CheckKind.SHAPES}, format_evaluation(ev)


def test_mistakes_are_spec_errors(tmp_path: Path) -> None:
    with pytest.raises(kcheck.SpecError, match="seeds"):
        evaluate(EVAL / "cheat_zeros.py", EVAL / "problem_matmul_bias_relu.py", seeds=0)
    with pytest.raises(kcheck.SpecError, match="candidate"):
        evaluate(tmp_path / "missing.py", EVAL / "problem_matmul_bias_relu.py")
    empty = tmp_path / "empty.py"
    empty.write_text("x = 1\n")
    with pytest.raises(kcheck.SpecError, match="get_inputs"):
        evaluate(EVAL / "cheat_zeros.py", empty, isolate=False)
    with pytest.raises(kcheck.SpecError, match="get_inputs"):  # the same mistake, found in the child process
        evaluate(EVAL / "cheat_zeros.py", empty, timeout=120)


def _broken(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "broken.py"
    path.write_text("import os, time, torch\nfrom torch import nn\n\nclass ModelNew(nn.Module):\n"
                    "    def __init__(self, *args):\n        super().__init__()\n\n"
                    "    def forward(self, x):\n" + textwrap.indent(body, " " * 8) + "\n")
    return path


def test_raising_candidate_is_a_verdict(tmp_path: Path) -> None:
    ev = evaluate(_broken(tmp_path, "raise ValueError('no kernel for you')"), EVAL / "problem_softmax.py", seeds=1,
                  trials=1, isolate=False)
    runs = ev.check(CheckKind.RUNS)
    assert runs is not None and runs.outcome is Outcome.FAIL and "no kernel for you" in runs.summary
    assert not ev.passed


def test_crash_and_hang_are_verdicts(tmp_path: Path) -> None:
    ev = evaluate(_broken(tmp_path, "os.abort()"), EVAL / "problem_softmax.py", seeds=1, trials=1, timeout=120)
    runs = ev.check(CheckKind.RUNS)
    assert runs is not None and runs.outcome is Outcome.FAIL and "SIGABRT" in runs.summary, format_evaluation(ev)
    ev = evaluate(_broken(tmp_path, "while True:\n    time.sleep(1)"), EVAL / "problem_softmax.py", seeds=1, trials=1,
                  timeout=15)
    runs = ev.check(CheckKind.RUNS)
    assert runs is not None and runs.outcome is Outcome.FAIL and "did not finish within 15 s" in runs.summary


def _cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="kcheck")
    add_cli(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    assert args.handler is run_cli
    return int(args.handler(args))


def test_cli_runs_isolated_and_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "eval.json"
    code = _cli(["eval", str(EVAL / "cheat_identity.py"), "--reference", str(EVAL / "problem_softmax.py"),
                 "--seeds", "1",
                 "--trials", "1", "--json", str(out)])
    assert code == 1
    report = json.loads(out.read_text())
    assert report["verdict"] == "FAIL"
    assert any(c["kind"] == "no-op" and c["outcome"] == "fail" for c in report["checks"])
    assert "verdict: FAIL" in capsys.readouterr().out
    assert _cli(["eval", str(tmp_path / "nope.py"), "--reference", str(EVAL / "problem_softmax.py")]) == 4


def test_a_background_thread_that_ends_before_the_check_is_still_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """A loaded machine: the candidate's background thread finishes after the call returned but before kcheck
    looks at the threads (simulated by letting every other thread finish as the outputs are first read). Its
    work was outside the call's time all the same."""
    import threading

    import kcheck.evaluation._harness as harness

    original = harness.flat_outputs

    def slow_to_look(out):
        for t in threading.enumerate():
            if t is not threading.current_thread() and t.name == "background-matmul":
                t.join(30)
        return original(out)

    monkeypatch.setattr(harness, "flat_outputs", slow_to_look)
    ev = evaluate(EVAL / "cheat_thread.py", EVAL / "problem_matmul_bias_relu.py", seeds=2, trials=1, isolate=False)
    assert not ev.passed, format_evaluation(ev)
    assert any(c.kind is CheckKind.THREADS and c.outcome is Outcome.FAIL for c in ev.checks), format_evaluation(ev)
