"""The command line: discovery, exit codes, JSON."""

import json
import textwrap

import pytest

from kcheck.cli import ExitCode, main

GOOD = """
import torch, kcheck
spec = kcheck.Spec(name="neg", kernel=torch.neg, reference=torch.neg, inputs=[kcheck.Tensor("N")],
                   dims={"N": kcheck.Dim(nominal=64, real=())})
"""
BAD = """
import torch, kcheck
def neg(x):
    y = -x
    y[-1:] = 0
    return y
spec = kcheck.Spec(name="neg_bad", kernel=neg, reference=torch.neg, inputs=[kcheck.Tensor("N")],
                   dims={"N": kcheck.Dim(nominal=64, real=())})
"""


@pytest.fixture
def files(tmp_path):
    (tmp_path / "good.py").write_text(textwrap.dedent(GOOD))
    (tmp_path / "bad.py").write_text(textwrap.dedent(BAD))
    (tmp_path / "empty.py").write_text("x = 1\n")
    return tmp_path


def test_passing_file_exits_zero_and_writes_json(files, capsys):
    out = files / "r.json"
    assert main(["check", str(files / "good.py"), "--json", str(out), "-q", "--tier", "quick"]) == ExitCode.OK
    data = json.loads(out.read_text())
    assert data["passed"] and data["specs"][0]["name"] == "neg"
    text = capsys.readouterr().out
    assert "neg" in text and "PASSED" in text and "all specs passed" in text


def test_failing_folder_exits_one_and_shows_the_message(files, capsys):
    assert main(["check", str(files), "-q", "--tier", "quick"]) == ExitCode.FAILED
    text = capsys.readouterr().out
    assert "neg_bad[N=1,fp32,randn,seed=0] FAILED" in text
    assert "Where: tail: elements" in text or "Where: " in text
    assert f"Rerun: kcheck check {files} --case 'neg_bad[" in text


def test_spec_and_case_filters(files, capsys):
    code = main(["check", str(files), "-q", "--spec", "neg", "--case", "neg[N=17,fp32,randn,seed=0]"])
    assert code == ExitCode.OK


def test_no_specs_and_import_errors(files, tmp_path, capsys):
    assert main(["check", str(files / "empty.py"), "-q"]) == ExitCode.NO_SPECS
    (tmp_path / "broken.py").write_text("import does_not_exist\n")
    assert main(["check", str(tmp_path / "broken.py"), "-q"]) == ExitCode.NO_SPECS
    assert "ModuleNotFoundError" in capsys.readouterr().out


def test_bad_arguments_name_the_fix(files, capsys):
    assert main(["check", str(files / "good.py"), "-q", "--dtypes", "fp33"]) == ExitCode.USAGE
    assert "dtypes='fp33'" in capsys.readouterr().err
    assert main(["check", str(files / "nope.py")]) == ExitCode.USAGE


def test_lint_exit_codes(capsys):
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    assert main(["lint", str(root / "examples")]) == ExitCode.OK
    assert "no findings" in capsys.readouterr().out
    assert main(["lint", str(root / "tests" / "zoo_kernels" / "missing_tail_mask.py")]) == ExitCode.FAILED
    assert "missing_tail_mask.py:26: error: [triton-unmasked-access]" in capsys.readouterr().out
    assert main(["lint", str(root / "tests" / "zoo_kernels" / "int32_overflow.py"), "--errors-only"]) == ExitCode.OK
    assert main(["lint", "no/such/path"]) == ExitCode.USAGE


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_fresh_shell_without_triton_interpret_runs_a_reduction_kernel_on_the_cpu(workers):
    """The workers' server imports Triton once for every worker; Triton reads TRITON_INTERPRET when its own library
    (``tl.sum``) is decorated, so the command line sets it before the server starts. Started earlier, every kernel
    calling ``tl.sum`` raised "Cannot call @triton.jit'd outside of the scope of a kernel" in the workers."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    import torch

    if torch.cuda.is_available():
        pytest.skip("on a GPU machine the kernels are compiled, not interpreted")
    root = Path(__file__).resolve().parent.parent
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    case = "sum_reduction[M=129,N=129,fp32,randn,BLOCK_N=1024,seed=0]"
    proc = subprocess.run([sys.executable, "-m", "kcheck", "check", "examples/sum_reduction.py", "-q", "-n",
                           workers, "--no-resources", "--case", case],
                          cwd=root, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == ExitCode.OK, proc.stdout[-2000:] + proc.stderr[-2000:]
