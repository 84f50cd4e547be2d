"""The command's entry: ``import kcheck`` is light, and the workers' server starts before the command imports torch."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from kcheck._entry import wants_workers

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(("argv", "expected"), [
    (["check", "examples/"], True),  # the command line isolates by default
    (["check", "examples/", "--no-isolate"], False),
    (["check", "examples/", "--no-isolate", "-n", "2"], True),
    (["check", "-n2", "--no-isolate", "examples/"], True),
    (["check", "--workers=auto", "--no-isolate", "x.py"], True),
    (["-q", "check", "x.py"], True),
    (["debug", "x.py"], True),
    (["check", "--help"], False),
    (["sanitize", "x.py"], False),
    (["lint", "x.py"], False),
    ([], False),
])
def test_which_command_lines_start_the_workers_server(argv, expected):
    assert wants_workers(argv) is expected


def test_import_kcheck_loads_names_on_first_use():
    code = textwrap.dedent("""
        import sys
        import kcheck
        assert "torch" not in sys.modules, "import kcheck imported torch"
        assert "Spec" in dir(kcheck) and "check" in kcheck.__all__
        import os
        import torch
        os.environ.pop("TRITON_INTERPRET", None)
        kcheck.enable_interpreter_if_no_gpu()  # as the first name used: the backends' set-up hooks must run
        assert torch.cuda.is_available() or os.environ.get("TRITON_INTERPRET") == "1"
        try:
            kcheck.Specc
        except AttributeError as exc:
            assert "Specc" in str(exc)
        else:
            raise AssertionError("no AttributeError")
        from kcheck import Tensor, check
        assert kcheck.Spec.__name__ == "Spec" and callable(check) and Tensor
    """)
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, timeout=120)


def test_the_command_starts_the_server_before_it_imports_torch(tmp_path):
    # the entry is what `kcheck` and `python -m kcheck` run; the server's start is recorded with whether torch was
    # already imported in this process at that moment
    code = textwrap.dedent("""
        import sys
        from kcheck import _entry, _forkserver
        seen = []
        real = _forkserver.start
        def start():
            seen.append("torch" in sys.modules)
            return real()
        _forkserver.start = start
        rc = _entry.main(["check", "examples/vector_add.py", "-q", "--tier", "quick", "--no-resources",
                          "--case", "vector_add[N=4096,fp32,randn,BLOCK=1024,seed=0]"])
        assert rc == 0, rc
        assert seen and seen[0] is False, seen
    """)
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, timeout=300)
