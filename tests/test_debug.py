"""The debugger: experiments, the rules' ranking, the minimal case and the standalone repro."""

import importlib
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import kcheck
from kcheck._device import interpreter_active
from kcheck.cli import ExitCode, main
from kcheck.diagnose import BUG_CLASSES, debug, doctor, format_diagnosis
from kcheck.diagnose._probe import Prober
from kcheck.diagnose._rules import diagnose

bugs = importlib.import_module("debug_specs.torch_bugs")


@pytest.mark.parametrize(("name", "expected"), [
    ("uninitialized", "uninitialized-accumulator"),
    ("wrong_axis", "wrong-axis"),
    ("column_sums", "index-transposition"),
    ("softmax_no_max", "exp-overflow"),
    ("normalize_no_eps", "division-by-zero"),
])
def test_the_planted_cause_is_ranked_first(name, expected, tmp_path):
    diag = debug(getattr(bugs, name), budget=60, out_dir=tmp_path)
    assert diag.failed and diag.top is not None, format_diagnosis(diag)
    assert diag.top.key == expected, format_diagnosis(diag)
    assert diag.top.evidence and diag.top.next_check
    assert diag.top.key in BUG_CLASSES


def test_the_evidence_names_what_was_seen(tmp_path):
    axis = debug(bugs.wrong_axis, budget=60, out_dir=tmp_path)
    assert "the failure vanishes when input 1 is all ones" in axis.top.evidence[0]
    cols = debug(bugs.column_sums, budget=60, out_dir=tmp_path)
    assert any("matches the reference of input 0 transposed" in e for e in cols.top.evidence)
    text = format_diagnosis(cols)
    assert "smallest failing case: column_sums[N=" in text and "experiments:" in text


def test_minimal_case_and_repro_script_run_standalone(tmp_path):
    diag = debug(bugs.uninitialized, budget=60, out_dir=tmp_path)
    assert diag.minimal_case is not None and diag.repro is not None
    proc = subprocess.run([sys.executable, diag.repro], capture_output=True, text=True, cwd="/")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "output 0" in proc.stdout
    source = open(diag.repro).read()
    assert "import kcheck" not in source and "from kcheck" not in source  # readable without kcheck's internals
    assert any("fails on its own" in n for n in diag.notes)


def test_a_correct_spec_has_nothing_to_debug(tmp_path):
    diag = debug(bugs.correct, out_dir=tmp_path)
    assert not diag.failed and diag.causes == [] and diag.experiments == [] and diag.repro is None
    assert "every case passed" in format_diagnosis(diag)


def test_a_spec_none_of_whose_cases_ran_is_not_said_to_pass(tmp_path):
    """Every case of a script with no `if __name__ == "__main__":` guard is an error no worker could start (the
    worker imports the main script again), and every case of a CUDA C Spec is skipped on a CPU. The debugger said
    "every case passed; nothing to debug" for both, and `kcheck debug` exited 0: now it says no case ran, and why,
    and exits with the code for "could not be checked here"."""
    import dataclasses

    from kcheck._results import Reason, ReasonKind, Status

    report = kcheck.check(bugs.correct, tier="quick", large=False).specs[0]
    refused = Reason('not run: the main script calls kcheck at its top level; put that call under if __name__ == '
                     '"__main__":; the kernel never ran', ReasonKind.NO_WORKER)
    report.cases = [dataclasses.replace(r, status=Status.ERROR, reasons=[refused]) for r in report.cases]
    diag = debug(bugs.correct, report=report, out_dir=tmp_path)
    text = format_diagnosis(diag)
    assert not diag.failed and "every case passed" not in text, text
    assert "no case ran here" in text and '__name__ == "__main__"' in text, text

    path = str(Path(__file__).resolve().parents[1] / "examples" / "cuda_transpose.py")
    code = main(["debug", path, "--budget", "5", "--out", str(tmp_path), "--tier", "quick"])
    assert code == ExitCode.UNKNOWN


def test_the_budget_bounds_the_experiments(tmp_path):
    diag = debug(bugs.softmax_no_max, budget=1e-6, out_dir=tmp_path)
    assert len(diag.experiments) <= 1
    assert any("budget" in n for n in diag.notes)


def test_bad_arguments_are_named():
    with pytest.raises(kcheck.SpecError, match="budget"):
        debug(bugs.correct, budget=0)
    with pytest.raises(kcheck.SpecError, match="spec"):
        debug("softmax")  # type: ignore[arg-type]


def test_zeroed_outputs_probe_is_the_only_difference():
    from kcheck._device import detect

    spec = bugs.uninitialized
    case = kcheck.matrix(spec, cases="uninitialized[M=64,N=64,fp32,randn,seed=0]")[0]
    p = Prober(spec, detect(), 30)
    assert not p.run(case, "plain", "poisoned").ok
    assert p.run(case, "outputs", "zeroed", ("zeroed", None)).ok


def test_every_rule_is_safe_on_empty_evidence():
    from kcheck._results import SpecReport
    from kcheck.diagnose._sweep import Evidence

    ev = Evidence(bugs.correct, SpecReport("correct", "torch", "cpu", []), [])
    assert diagnose(ev) == []


def test_doctor_runs_ten_steps_in_order():
    steps = doctor(bugs.uninitialized)
    assert [s.number for s in steps] == list(range(1, 11))
    assert any(s.outcome == "problem" for s in steps)
    if not torch.cuda.is_available():
        assert steps[0].outcome == "not run" and "GPU" in steps[0].detail  # torch kernel, no GPU: says why
    assert steps[9].outcome == "not run"
    good = doctor(bugs.correct)
    assert all(s.outcome != "problem" for s in good), [s.describe() for s in good]


def test_cli_debug_writes_repro_html_and_json(tmp_path, capsys):
    import json
    from pathlib import Path

    from kcheck.cli import main

    path = str(Path(bugs.__file__))
    html, out_json = tmp_path / "r.html", tmp_path / "d.json"
    code = main(["debug", path, "--spec", "uninitialized", "--budget", "30", "--out", str(tmp_path),
                 "--html", str(html), "--json", str(out_json)])
    text = capsys.readouterr().out
    assert code == 1 and "uninitialized accumulator" in text and "standalone repro: python" in text
    page = html.read_text()
    assert "uninitialized" in page and "<img" in page and "Likely causes" in page
    data = json.loads(out_json.read_text())
    assert data["uninitialized"]["causes"][0]["key"] == "uninitialized-accumulator"
    assert data["uninitialized"]["error_maps"]


def test_cli_doctor_prints_ten_steps(capsys):
    from pathlib import Path

    from kcheck.cli import main

    code = main(["doctor", str(Path(bugs.__file__)), "--spec", "correct"])
    text = capsys.readouterr().out
    assert code == 0 and " 1. " in text and "10. " in text


def test_a_worker_rebuilds_a_probe_variant_from_its_description():
    """On a GPU the probes run in isolated workers: the variant travels as a description and is rebuilt there."""
    from pathlib import Path

    from kcheck._discover import SpecRef
    from kcheck.diagnose._probe import ApplyVariant
    from kcheck.run import Isolated

    spec = bugs.uninitialized
    case = kcheck.matrix(spec, cases="uninitialized[M=64,N=64,fp32,randn,seed=0]")[0]
    path = str(Path(bugs.__file__).resolve())
    with Isolated(timeout=120) as worker:
        assert not worker.run(SpecRef(path, "uninitialized"), case).ok
        assert worker.run(SpecRef(path, "uninitialized", ApplyVariant(("zeroed", None))), case).ok


def test_launch_configurations_are_probed_on_the_smallest_failing_case(tmp_path):
    diag = debug(bugs.config_bug, budget=60, out_dir=tmp_path)
    configs = [e for e in diag.experiments if e.axis == "config"]
    assert configs and all(e.passed for e in configs) and configs[0].label == "BLOCK=32"
    assert any("passes with BLOCK=32 and fails with BLOCK=16" in ev for c in diag.causes for ev in c.evidence)
    assert diag.top.key == "edge-guard", format_diagnosis(diag)  # fails at 17, 33, 65, passes at multiples of 16


def test_the_smallest_failing_case_is_tried_in_the_specs_other_precisions(tmp_path):
    diag = debug(bugs.uninitialized_two_precisions, budget=60, out_dir=tmp_path)
    probes = [e for e in diag.experiments if e.axis == "precision"]
    assert [e.label for e in probes] == ["fp16"] and not probes[0].passed
    assert diag.top.key == "uninitialized-accumulator"


def test_a_repro_of_a_memory_finding_checks_the_accesses_and_fails(tmp_path):
    """An off-by-one mask reads one element past the end: the values are right, the access is not."""
    spec = importlib.import_module("zoo_kernels.off_by_one_mask").spec
    diag = debug(spec, budget=60, out_dir=tmp_path)
    assert diag.top.key == "off-by-one-mask", format_diagnosis(diag)
    if not interpreter_active():  # on a GPU every case passes: compute-sanitizer's memcheck is the evidence
        assert any("every case passed; compute-sanitizer" in n for n in diag.notes), format_diagnosis(diag)
        return
    proc = subprocess.run([sys.executable, diag.repro], capture_output=True, text=True, cwd="/")
    assert proc.returncode == 1 and "memory/race check: out-of-bounds read" in proc.stdout, proc.stdout + proc.stderr


def test_doctor_says_not_run_where_nothing_could_run():
    spec = importlib.import_module("zoo_kernels.cuda_missing_sync").spec
    steps = doctor(spec)
    if torch.cuda.is_available():
        pytest.skip("on a GPU the CUDA C kernel runs")
    assert [s.outcome for s in steps[2:5]] == ["not run"] * 3, [s.describe() for s in steps]


def test_debug_takes_a_whole_report_or_says_which_it_needs(tmp_path):
    report = kcheck.check(bugs.correct, tier="quick")
    assert not debug(bugs.correct, report=report, out_dir=tmp_path).failed
    with pytest.raises(kcheck.SpecError, match="report"):
        debug(bugs.uninitialized, report=report.specs[0], out_dir=tmp_path)


def test_a_strided_failure_keeps_its_layout_in_the_repro(tmp_path):
    diag = debug(bugs.ignores_strides, budget=60, out_dir=tmp_path)
    assert diag.minimal_case is not None and "strided" in diag.minimal_case, format_diagnosis(diag)
    proc = subprocess.run([sys.executable, diag.repro], capture_output=True, text=True, cwd="/")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    # saved as storage + view (a GPU tensor's .cpu() copy would have made the padded view contiguous)
    (saved,) = torch.load(diag.repro.replace(".py", ".inputs.pt"), weights_only=False)
    assert isinstance(saved, dict) and saved["stride"][0] > saved["size"][1]


def test_a_kernel_that_raises_is_said_so_not_taken_for_wrong_values(tmp_path):
    diag = debug(bugs.refuses_ragged, budget=60, out_dir=tmp_path)
    assert diag.top.key == "kernel-raises", format_diagnosis(diag)
    assert "is not a multiple of the block" in diag.top.evidence[0]
    assert all(c.key not in ("edge-guard", "index-transposition", "missing-atomic") for c in diag.causes)


def test_a_shape_the_launcher_refuses_does_not_outrank_the_cause_of_the_wrong_values(tmp_path):
    """On the H200 the past-2**31 case of the zoo's l1 normalization raised (its one-block-per-row launcher refuses
    N = 16777217) and the debugger ranked kernel-raises above the division by zero that all the other failures
    showed. A few cases that raise among many wrong values are a second finding."""
    diag = debug(bugs.normalize_no_eps_one_block, budget=60, out_dir=tmp_path)
    assert diag.top.key == "division-by-zero", format_diagnosis(diag)
    raises = next(c for c in diag.causes if c.key == "kernel-raises")
    assert "exceeds the block limit" in raises.evidence[0]


def test_on_a_gpu_a_spec_whose_cases_all_pass_is_sanitized(tmp_path, monkeypatch):
    """Right values do not clear a kernel on a GPU: debug() runs compute-sanitizer over the edge cases, and says
    why when it cannot (here: no compute-sanitizer, a GPU described to a CPU run)."""
    from kcheck._device import DeviceInfo
    from kcheck.sanitize import _run

    monkeypatch.setattr(_run, "_sanitizer", lambda: None)
    gpu = DeviceInfo("cuda", "a GPU without compute-sanitizer", 2**34, 2**34, (9, 0), 132, False)
    report = kcheck.check(bugs.correct, large=False).specs[0]
    diag = debug(bugs.correct, report=report, out_dir=tmp_path, device=gpu)
    assert not diag.failed and diag.causes == []
    assert any("every case passed; compute-sanitizer over the edge cases: compute-sanitizer not found" in n
               for n in diag.notes), diag.notes


def test_sanitizer_findings_on_a_passing_spec_become_the_diagnosis(tmp_path, monkeypatch):
    """The H200's off-by-one mask: right values, one lane past the end per access. The findings alone fail the
    Spec and name the class."""
    import kcheck.sanitize
    from kcheck._device import DeviceInfo
    from kcheck._findings import Finding
    from kcheck.sanitize._run import SanitizeReport, ToolRun

    finding = Finding("memcheck", "out-of-bounds", "error", "Invalid __global__ read of size 4 bytes", kernel="k",
                      file="k.py", line=16, count=1, cases=["correct[M=17,N=17,fp32,randn,seed=0]"])
    monkeypatch.setattr(kcheck.sanitize, "sanitize",
                        lambda spec, **kw: SanitizeReport(spec.name, [ToolRun("memcheck", "errors", [finding])]))
    gpu = DeviceInfo("cuda", "a GPU", 2**34, 2**34, (9, 0), 132, False)
    report = kcheck.check(bugs.correct, large=False).specs[0]
    diag = debug(bugs.correct, report=report, out_dir=tmp_path, device=gpu)
    assert diag.failed and diag.top is not None and diag.top.key == "off-by-one-mask", format_diagnosis(diag)
    assert any("memcheck found 1" in n for n in diag.notes), diag.notes
