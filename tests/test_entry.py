"""The command's entry: ``import kcheck`` is light, and the workers' server starts before the command imports torch."""

from __future__ import annotations

import os
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
        assert "Spec" in dir(kcheck) and set(kcheck._WHERE) == set(kcheck.__all__)  # one table, no drift
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
        assert all(getattr(kcheck, name) is not None for name in kcheck.__all__)
    """)
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, timeout=120)


ZEROS_SPEC = """
import torch, triton, triton.language as tl, kcheck

@triton.jit
def _rowsum(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    b = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)  # tl.zeros: a @jit function of triton.language itself
    cols = tl.arange(0, BLOCK)
    acc += tl.load(x_ptr + b * N + cols, mask=cols < N, other=0.0)
    tl.store(out_ptr + b, tl.sum(acc, axis=0))

def rowsum(x):
    x = x.contiguous()
    out = torch.empty(x.shape[0], dtype=torch.float32, device=x.device)
    if out.numel():
        _rowsum[(x.shape[0],)](x, out, x.shape[1], BLOCK=triton.next_power_of_2(max(x.shape[1], 1)))
    return out

spec = kcheck.Spec(name="rowsum", kernel=rowsum, reference=lambda x: x.sum(1), inputs=[kcheck.Tensor("B", "N")],
                   dtypes=["fp32"], dims={"B": kcheck.Dim(nominal=4, min=1), "N": kcheck.Dim(nominal=64, min=1)})
"""


def test_the_command_starts_the_server_before_it_imports_torch_and_the_workers_import_as_prepared(tmp_path):
    """The entry (what `kcheck` and `python -m kcheck` run) starts the server before this process imports torch, on
    a machine that looks like it has a GPU (here pretended). Without a GPU the command then switches Triton's
    interpreter on, which Triton reads as it imports: the server, started before, is started again under that
    environment, else triton.language's own @jit functions (tl.zeros) are not interpreted in the workers and a
    correct kernel is not run ("Cannot call @triton.jit'd outside of the scope of a kernel")."""
    (tmp_path / "zeros_spec.py").write_text(ZEROS_SPEC)
    code = textwrap.dedent(f"""
        import sys
        from kcheck import _entry, _forkserver
        seen = []
        real = _forkserver.start
        def start(early=False):
            seen.append((early, "torch" in sys.modules))
            return real(early)
        _forkserver.start = start
        _forkserver.gpu_device_files = lambda: True
        rc = _entry.main(["check", {str(tmp_path / "zeros_spec.py")!r}, "-q", "--tier", "quick", "--no-resources",
                          "--no-large"])
        assert rc == 0, rc
        assert seen and seen[0] == (True, False), seen
    """)
    # the command's own environment, as a user's shell gives it (this test session switched the interpreter on)
    env = {k: v for k, v in os.environ.items() if k not in ("TRITON_INTERPRET", "NUMBA_ENABLE_CUDASIM")}
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, timeout=600, env=env)
