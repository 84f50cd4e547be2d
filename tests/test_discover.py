"""Discovery: which files a folder walk imports, unique module names, Specs that share a name, imports that block."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from kcheck import KcheckError, SpecError
from kcheck._discover import ImportTimeout, discover, load_module, module_name


@pytest.fixture(autouse=True)
def _own_sys_path(monkeypatch):
    """load_module puts each file's folder first on sys.path: keep those temporary folders out of later tests."""
    monkeypatch.setattr(sys, "path", list(sys.path))


def _spec_file(file: Path, *names: str, extra: str = "") -> Path:
    """A file with one module-level Spec per name (variable = name)."""
    file.parent.mkdir(parents=True, exist_ok=True)
    specs = "\n".join(f"{n} = kcheck.Spec(name={n!r}, kernel=lambda x: x, reference=lambda x: x, "
                      "inputs=[kcheck.Tensor('N')])" for n in names)
    file.write_text(f"import kcheck\n{textwrap.dedent(extra)}\n{specs}\n")
    return file


def _names(found: list) -> dict[str, list[str]]:
    return {str(f.path): sorted(s.name for s in f.specs) for f in found if f.specs}


def test_files_whose_old_module_names_collided_are_all_imported(tmp_path):
    dash = _spec_file(tmp_path / "my-kernel.py", "dash_one", "dash_two")
    under = _spec_file(tmp_path / "my_kernel.py", "under_one")
    deep_a = _spec_file(tmp_path / "a" / "x" / "y" / "spec.py", "deep_a")
    deep_b = _spec_file(tmp_path / "b" / "x" / "y" / "spec.py", "deep_b1", "deep_b2")
    found = discover(tmp_path)
    assert all(f.error is None for f in found), [f.error for f in found]
    assert _names(found) == {str(dash): ["dash_one", "dash_two"], str(under): ["under_one"],
                             str(deep_a): ["deep_a"], str(deep_b): ["deep_b1", "deep_b2"]}
    assert len({module_name(p) for p in (dash, under, deep_a, deep_b)}) == 4


def test_the_module_name_is_the_same_for_any_spelling_of_the_path_and_in_another_process(tmp_path, monkeypatch):
    file = _spec_file(tmp_path / "sub" / "k.py", "k")
    monkeypatch.chdir(tmp_path)
    assert load_module(Path("sub/k.py")) is load_module(file) is load_module(tmp_path / "sub" / ".." / "sub" / "k.py")
    code = ("from pathlib import Path; from kcheck._discover import module_name; "
            f"print(module_name(Path({str(file)!r})))")
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert other == module_name(file)


def test_two_specs_with_one_name_are_an_error_naming_both_variables(tmp_path):
    file = _spec_file(tmp_path / "dup.py", "fine", extra="""
        first = kcheck.Spec(name="same", kernel=lambda x: x, reference=lambda x: x, inputs=[kcheck.Tensor("N")])
        second = kcheck.Spec(name="same", kernel=lambda x: x + 1, reference=lambda x: x, inputs=[kcheck.Tensor("N")])
        """)
    (found,) = discover(file)
    assert found.error is not None and "first" in found.error and "second" in found.error
    assert "'same'" in found.error and "give each Spec a unique name" in found.error
    assert [s.name for s in found.specs] == ["fine"]  # neither of the two runs


def test_one_spec_under_two_variable_names_is_not_a_duplicate(tmp_path):
    file = _spec_file(tmp_path / "alias.py", "spec")
    file.write_text(file.read_text() + "alias = spec\n")
    (found,) = discover(file)
    assert found.error is None and [s.name for s in found.specs] == ["spec"]


def _imports_loudly(file: Path) -> Path:
    """A file that imports kcheck and fails on import: imported, it shows as an error."""
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text("import kcheck\nraise RuntimeError('this file must not be imported')\n")
    return file


def test_a_folder_walk_imports_only_the_users_files_that_can_hold_specs(tmp_path):
    root = tmp_path / ".hidden-parent" / "proj"  # a hidden folder in the path given is fine
    good = _spec_file(root / "kernels" / "row_softmax.py", "row_softmax")
    also = _spec_file(root / "tiled_gemm.py", "tiled_gemm")
    also.write_text(also.read_text().replace("import kcheck\n", "import os\nfrom kcheck import Spec\nimport kcheck\n"))
    for rel in ("setup.py", "conftest.py", "docs/conf.py", "kernels/conftest.py", "build/lib/k.py", "dist/k.py",
                "lib/python3.12/site-packages/pkg/k.py", "node_modules/x/k.py", "pkg.egg-info/k.py",
                "kernels/__pycache__/k.py", "kernels/.hidden/deep/k.py", ".git/hooks/k.py", "kernels/__init__.py",
                "myenv/lib/k.py", "winenv/Lib/k.py", "condaenv/k.py", "venv/k.py", ".venv/k.py"):
        _imports_loudly(root / rel)
    (root / "myenv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (root / "winenv" / "Scripts").mkdir()
    (root / "winenv" / "Scripts" / "activate").write_text("")
    (root / "condaenv" / "conda-meta").mkdir()
    plain = root / "helpers.py"
    plain.write_text("raise RuntimeError('no kcheck import: not imported')\n")
    mention = root / "notes.py"
    mention.write_text("# this helper is used with kcheck\nimport kcheck_extras\nraise RuntimeError('no')\n")

    found = discover(root)
    assert [f.error for f in found if f.error] == []
    assert [f.path for f in found if f.imported] == sorted([good, also])
    assert _names(found) == {str(also): ["tiled_gemm"], str(good): ["row_softmax"]}
    skipped = {str(f.path.relative_to(root)): f.skipped for f in found if not f.imported}
    assert sorted(skipped) == ["conftest.py", "docs/conf.py", "helpers.py", "kernels/__init__.py",
                               "kernels/conftest.py", "notes.py", "setup.py"]
    assert skipped["helpers.py"] == skipped["notes.py"] == "does not import kcheck"
    assert all("never imported from a folder" in skipped[k] for k in ("setup.py", "conftest.py", "docs/conf.py"))


def test_a_file_given_explicitly_is_always_imported(tmp_path):
    (found,) = discover(_imports_loudly(tmp_path / "build" / "setup.py"))
    assert found.imported and "must not be imported" in (found.error or "")
    with pytest.raises(SpecError, match="PATH"):
        discover(tmp_path / "missing")


@pytest.mark.parametrize("body", [
    "import time\nwhile True:\n    try:\n        time.sleep(10**6)\n    except Exception:\n        pass\n",
    "while True:\n    pass\n",
])
def test_an_import_that_blocks_is_stopped_at_the_limit(tmp_path, body):
    file = tmp_path / "blocks.py"
    file.write_text("import kcheck\n" + body)
    _spec_file(tmp_path / "after.py", "after")
    handler = signal.getsignal(signal.SIGALRM)
    t0 = time.monotonic()
    found = discover(tmp_path, import_timeout=1)
    assert time.monotonic() - t0 < 10
    assert [(f.path.name, f.error) for f in found] == [
        ("after.py", None), ("blocks.py", "import did not finish within 1 s (it blocks or loops at module level)")]
    assert [s.name for s in found[0].specs] == ["after"]
    assert module_name(file) not in sys.modules  # the half-imported module is gone
    assert signal.getsignal(signal.SIGALRM) is handler and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    with pytest.raises(ImportTimeout) as raised:
        load_module(file, import_timeout=0.2)
    assert isinstance(raised.value, KcheckError) and "0.2 s" in str(raised.value)


def test_no_limit_and_a_quick_import_leave_no_timer(tmp_path):
    for limit in (0, None, 30):
        (found,) = discover(_spec_file(tmp_path / f"quick{limit}.py", f"quick{limit}"), import_timeout=limit)
        assert found.error is None and len(found.specs) == 1
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
