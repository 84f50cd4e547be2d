"""The repro script `kcheck debug` writes: its inputs file cannot run code, every value pasted into it is spelled
so that the script stays valid (a path with quotes, backslashes or a newline), and it runs from a relative folder."""

from __future__ import annotations

import ast
import dataclasses
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

import kcheck
from kcheck._discover import load_module
from kcheck._findings import Finding
from kcheck._results import CaseResult, Status
from kcheck.diagnose._repro import run_repro, write_repro

SPEC = """
import torch

import kcheck

wrong = kcheck.Spec(name="wrong", kernel=lambda x: x + 1, reference=lambda x: x, inputs=[kcheck.Tensor("N")],
                    dims={"N": kcheck.Dim(nominal=8, real=())}, dtypes=["fp32"])
"""

# a folder name no f-string pasted between quotes survives: both quotes, a triple quote, a backslash escape that
# is invalid in a string literal (\x), and a newline
WEIRD = "it's \"q\" \"\"\" \\x9 \\N\nline"


@pytest.fixture(autouse=True)
def _own_sys_path(monkeypatch):
    """load_module puts each file's folder first on sys.path: keep those temporary folders out of later tests."""
    monkeypatch.setattr(sys, "path", list(sys.path))


def _failing(spec: kcheck.Spec) -> CaseResult:
    report = kcheck.check(spec, tier="quick", large=False)
    return next(c for c in report.specs[0].cases if c.status == Status.FAILED)


def _spec_file_in(folder: Path) -> tuple[kcheck.Spec, Path]:
    folder.mkdir(parents=True)
    file = folder / "wrong_spec.py"
    file.write_text(textwrap.dedent(SPEC))
    return load_module(file).wrong, file


def _literal(script_text: str, name: str) -> object:
    for node in ast.parse(script_text).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError(f"no {name} = ... in the script")


def test_a_path_with_quotes_backslashes_and_a_newline_gives_a_valid_script_for_the_right_file(tmp_path):
    spec, file = _spec_file_in(tmp_path / WEIRD)
    result = _failing(spec)
    finding = Finding(tool="interpreter", kind="out-of-bounds", severity="error",
                      message="read past the end\nraise SystemExit(42)", file=str(file), line=3)
    for case in (result, dataclasses.replace(result, findings=[finding])):
        script = write_repro(spec, str(file), case, tmp_path / "out", "cpu", cause='a "cause"\nwith \\ two lines')
        text = script.read_text(encoding="utf-8")
        tree = compile(text, str(script), "exec", ast.PyCF_ONLY_AST)
        assert _literal(text, "SPEC_FILE") == str(file.resolve())
        assert "SystemExit(42)" not in ast.unparse(tree)  # a finding's message stays in its comment
        assert str(file.resolve()) in ast.get_docstring(tree)  # the docstring reads back as the real path
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd="/")
    assert proc.returncode == 1, proc.stdout + proc.stderr  # it loaded the right file and the bug shows


class _Plant:
    """Unpickling this creates a file: what a crafted inputs file would do with a full pickle load."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return open, (self.marker, "w")


def test_the_script_refuses_an_inputs_file_that_would_run_code(tmp_path):
    spec, file = _spec_file_in(tmp_path / "specs")
    script = write_repro(spec, str(file), _failing(spec), tmp_path / "out", "cpu")
    marker = tmp_path / "planted"
    torch.save([_Plant(str(marker))], script.with_name(f"repro_{spec.name}.inputs.pt"))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd="/")
    assert not marker.exists(), "loading the inputs ran code"
    assert proc.returncode == 3 and "UnpicklingError" in proc.stderr, proc.stdout + proc.stderr


def test_an_input_a_safe_load_refuses_gets_no_script_and_is_named(tmp_path):
    spec, file = _spec_file_in(tmp_path / "specs")
    custom = kcheck.Spec(name="custom", kernel=lambda x, c: x + 1, reference=lambda x, c: x,
                         inputs=[kcheck.Tensor("N"), kcheck.Custom(lambda ctx: _Plant(os.devnull))],
                         dims={"N": kcheck.Dim(nominal=8, real=())}, dtypes=["fp32"])
    result = dataclasses.replace(_failing(spec), case=kcheck.matrix(custom, tier="quick", large=False)[0])
    with pytest.raises(ValueError, match=r"input 1 \(_Plant\)"):
        write_repro(custom, str(file), result, tmp_path / "out", "cpu")
    assert not (tmp_path / "out" / "repro_custom.inputs.pt").exists()


def test_a_relative_out_dir_runs_the_script(tmp_path, monkeypatch):
    spec, file = _spec_file_in(tmp_path / "specs")
    monkeypatch.chdir(tmp_path)
    script = write_repro(spec, str(file), _failing(spec), Path("rel") / "out", "cpu")
    assert not script.is_absolute()
    rc, _, tail = run_repro(script, timeout=120)
    assert rc == 1, tail  # the bug, not "the script itself broke (exit 2)"
