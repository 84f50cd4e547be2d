"""The Numba backend: ``numba.cuda`` launchers are recognized (and nothing else is), their examples pass and their
planted bugs fail in Numba's CUDA simulator on a machine without a GPU, and the backend says why it cannot run where
numba is missing or unusable.

kcheck's pytest plugin sets ``NUMBA_ENABLE_CUDASIM=1`` before this module imports numba when there is no GPU. The
quick tier keeps the CPU tests short (the simulator runs a few thousand threads a second); ``kcheck check
examples/numba_*.py`` runs the default tier.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import torch

pytest.importorskip("numba")

import kcheck
from kcheck import Status
from kcheck._device import detect
from kcheck.backends import backend_of, by_name
from kcheck.backends._numba import NumbaBackend, simulator_on

ROOT = Path(__file__).resolve().parent.parent
GPU = torch.cuda.is_available()
CPU = dataclasses.replace(detect(), device="cpu", capability=None) if GPU else detect()
H200 = dataclasses.replace(CPU, device="cuda", name="NVIDIA H200", capability=(9, 0))

needs_simulator = pytest.mark.skipif(GPU or not simulator_on(),
                                     reason="needs Numba's CUDA simulator (a machine without a GPU, numba imported "
                                            "after NUMBA_ENABLE_CUDASIM=1)")


def _spec(module: str) -> kcheck.Spec:
    return importlib.import_module(module).spec


def _check(module: str) -> kcheck.Report:
    return kcheck.check(_spec(module), tier="quick", large=False, isolate=False)


# --- recognition -------------------------------------------------------------------------------------------------


def test_numba_launchers_and_kernels_get_the_numba_backend():
    for module, kernel in (("numba_scale_add", "scale_add_kernel"), ("numba_block_sum", "row_sum_kernel")):
        mod = importlib.import_module(module)
        assert backend_of(mod.spec.kernel).name == "numba"
        assert backend_of(getattr(mod, kernel)).name == "numba"  # the kernel itself, not only its launcher
        assert by_name("numba").kernel_names(mod.spec.kernel) == {kernel}


def test_other_kernels_do_not_get_the_numba_backend():
    assert backend_of(torch.add).name == "torch"
    assert backend_of(lambda x: x * 2).name == "torch"
    assert backend_of(_spec("vector_add").kernel).name == "triton"
    assert backend_of(_spec("cuda_block_reduce").kernel).name == "cuda"
    assert by_name("numba").kernels(_spec("vector_add").kernel) == []


def test_an_object_named_like_a_dispatcher_outside_numba_is_not_a_kernel():
    fake = type("CUDADispatcher", (), {"__module__": "mylib.gpu"})()
    assert backend_of(lambda x: fake).name == "torch"
    assert NumbaBackend().kernels(fake) == []


def test_shared_memory_is_seen_in_the_reduction_only():
    numba = by_name("numba")
    assert numba.shares_memory(_spec("numba_block_sum").kernel)
    assert not numba.shares_memory(_spec("numba_scale_add").kernel)


def test_recognizing_a_kernel_never_imports_numba():
    code = ("import sys, torch, kcheck\n"
            "from kcheck.backends import backend_of\n"
            "assert backend_of(torch.add).name == 'torch' and backend_of(lambda x: x).name == 'torch'\n"
            "assert 'numba' not in sys.modules, 'kcheck imported numba'\n")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr


# --- environment, can it run, what is trusted --------------------------------------------------------------------


def test_prepare_environment_turns_the_simulator_on_only_without_a_gpu(monkeypatch):
    b = NumbaBackend()
    monkeypatch.delenv("NUMBA_ENABLE_CUDASIM", raising=False)
    b.prepare_environment(gpu=True)
    assert "NUMBA_ENABLE_CUDASIM" not in os.environ
    b.prepare_environment(gpu=False)
    assert os.environ["NUMBA_ENABLE_CUDASIM"] == "1"
    monkeypatch.setenv("NUMBA_ENABLE_CUDASIM", "0")  # the user's own setting wins
    b.prepare_environment(gpu=False)
    assert os.environ["NUMBA_ENABLE_CUDASIM"] == "0"


def test_numpys_removed_row_stack_is_put_back_for_numba_on_a_gpu(monkeypatch):
    """numba before 0.62 registers np.row_stack when it first compiles for CUDA; NumPy 2.4 removed that alias of
    np.vstack, so numba.cuda failed to compile any kernel on such a GPU machine. kcheck puts the alias back there,
    and only there."""
    import numpy

    monkeypatch.setattr(numpy, "row_stack", None, raising=False)  # undone at the end, whatever NumPy had
    monkeypatch.delattr(numpy, "row_stack")
    NumbaBackend().prepare_environment(gpu=False)
    assert not hasattr(numpy, "row_stack")
    NumbaBackend().prepare_environment(gpu=True)
    assert numpy.row_stack is numpy.vstack
    keep = numpy.row_stack
    NumbaBackend().prepare_environment(gpu=True)  # an existing one is left alone
    assert numpy.row_stack is keep


def _without_numba(monkeypatch: pytest.MonkeyPatch, sim: str) -> None:
    """As if numba were not installed: importing it raises ImportError, and the simulator flag comes from the
    environment (numba not imported)."""
    from kcheck.backends import _numba

    for name in [m for m in sys.modules if m == "numba" or m.startswith("numba.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "numba", None)
    # and numba.cuda itself, whether an earlier test imported it or not (else the message depends on that)
    monkeypatch.setitem(sys.modules, "numba.cuda", None)
    monkeypatch.setenv("NUMBA_ENABLE_CUDASIM", sim)
    _numba._gpu_problem.cache_clear()
    _numba._simulator_problem.cache_clear()
    monkeypatch.setattr(_numba, "_gpu_problem", _numba._gpu_problem.__wrapped__)
    monkeypatch.setattr(_numba, "_simulator_problem", _numba._simulator_problem.__wrapped__)


def test_cannot_run_says_numba_is_missing_on_a_gpu(monkeypatch):
    _without_numba(monkeypatch, "0")
    why = NumbaBackend().cannot_run(H200)
    assert why is not None and "numba.cuda does not import" in why and "halted; None in sys.modules" in why


def test_cannot_run_says_numba_is_missing_on_the_cpu(monkeypatch):
    _without_numba(monkeypatch, "1")
    why = NumbaBackend().cannot_run(CPU)
    assert why is not None and "numba is not importable" in why and "halted; None in sys.modules" in why


def test_cannot_run_on_a_cpu_without_the_simulator(monkeypatch):
    _without_numba(monkeypatch, "0")
    why = NumbaBackend().cannot_run(CPU)
    assert why is not None and "NUMBA_ENABLE_CUDASIM=1" in why


def test_cannot_run_says_why_the_gpu_target_fails(monkeypatch):
    """numba imports but its CUDA target cannot compile (e.g. no NVVM in the environment): the error is the reason."""
    from kcheck.backends import _numba

    class FakeCuda:
        @staticmethod
        def is_available() -> bool:
            return True

        @staticmethod
        def compile_ptx(*_: Any) -> None:
            raise OSError("libNVVM cannot be found")

    monkeypatch.setitem(sys.modules, "numba.core.config", None)
    monkeypatch.setenv("NUMBA_ENABLE_CUDASIM", "0")
    monkeypatch.setattr(_numba, "_gpu_problem", _numba._gpu_problem.__wrapped__)
    import numba

    monkeypatch.setattr(numba, "cuda", FakeCuda, raising=False)
    monkeypatch.setitem(sys.modules, "numba.cuda", FakeCuda)
    why = NumbaBackend().cannot_run(H200)
    assert why is not None and "cannot compile" in why and "libNVVM cannot be found" in why


@pytest.mark.skipif(GPU, reason="on a GPU the kernels run through numba's CUDA target")
def test_the_plugin_turns_the_simulator_on_without_a_gpu():
    assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
    assert simulator_on()  # numba, imported by this module, read it
    assert NumbaBackend().cannot_run(CPU) is None


@needs_simulator
def test_half_precision_failures_are_not_blamed_on_the_kernel_in_the_simulator():
    b = NumbaBackend()
    assert b.untrusted_precision("fp32", CPU) is None
    for p in ("fp16", "bf16"):
        why = b.untrusted_precision(p, CPU)
        assert why is not None and "simulator" in why
    assert b.untrusted_precision("fp16", H200) is None
    assert b.untrusted_error(NotImplementedError("atomic on a record"), CPU) is not None
    assert b.untrusted_error(IndexError("index 36 is out of bounds"), CPU) is None  # the kernel's own fault


# --- examples and planted bugs in the simulator ------------------------------------------------------------------


@needs_simulator
@pytest.mark.parametrize("module", ["numba_scale_add", "numba_block_sum"])
def test_example_passes_in_the_simulator(module):
    report = _check(module)
    assert report.passed, kcheck.format_report(report)
    assert report.specs[0].framework == "numba"
    assert report.specs[0].count(Status.PASSED) > 5


@needs_simulator
def test_unguarded_tail_raises_out_of_bounds_off_the_block_multiple():
    report = _check("numba_kernels.unguarded_tail")
    assert not report.passed
    errors = [c for c in report.cases if c.status is Status.ERROR]
    for res in report.cases:
        n, tpb = res.case.sizes["N"], res.case.config_dict["TPB"]
        assert (res in errors) == (n % tpb != 0), kcheck.format_case(res)
    text = kcheck.format_case(errors[0])
    assert "IndexError" in text and "out of bounds" in text and "ctaid=" in text


@needs_simulator
def test_missing_barrier_gives_wrong_sums():
    report = _check("numba_kernels.missing_barrier")
    assert not report.passed
    runs = [c for c in report.cases if c.status is not Status.SKIPPED and c.case.sizes["M"] > 0]
    failed = [c for c in runs if c.status is Status.FAILED]
    # the schedule decides each case, but with threads started one by one nearly every case shows it
    assert len(failed) >= len(runs) // 2, kcheck.format_report(report)
    assert "Tensor-likes are not close" in kcheck.format_case(failed[0])


# --- on a GPU, where numba's CUDA target works -------------------------------------------------------------------


@pytest.mark.gpu
def test_numba_cuda_runs_on_this_gpu():
    why = NumbaBackend().cannot_run(detect())
    if why is not None:
        pytest.skip(f"numba's CUDA target is unusable here: {why}")


@pytest.mark.gpu
@pytest.mark.parametrize("module", ["numba_scale_add", "numba_block_sum"])
def test_example_passes_on_the_gpu(module):
    if (why := NumbaBackend().cannot_run(detect())) is not None:
        pytest.skip(why)
    report = kcheck.check(_spec(module), tier="quick", large=False)
    assert report.passed, kcheck.format_report(report)
    assert report.specs[0].count(Status.PASSED) > 5
