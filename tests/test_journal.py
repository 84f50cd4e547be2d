"""The GPU journal: Triton's helpers in the interpreter (the GPU tests are marked), the host's decoding and summary,
the CUDA C header compiled for sm_90 with nvcc, the examples' scenarios, and the debugger's use of a journaled
variant."""

from __future__ import annotations

import importlib.util
import json
import math
import shutil
import sys
from pathlib import Path

import pytest
import torch
import triton
import triton.language as tl

import kcheck
from kcheck.journal import ENTRY_WORDS, HEADER_WORDS, Journal, log, log_tile

ROOT = Path(__file__).resolve().parent.parent
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


def _example(name: str):
    path = ROOT / "examples" / "journal" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"journal_example_{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@triton.jit
def _steps_kernel(x_ptr, out_ptr, n_cols, journal, journal_cap, BLOCK: tl.constexpr):
    """2-D grid: program (row, col_block); journals the running sum of squares of its column block per tile of
    rows... simplified to one tile per step over the row's columns."""
    row = tl.program_id(0)
    part = tl.program_id(1)
    acc = tl.zeros((), dtype=tl.float32)
    for step in range(0, tl.cdiv(n_cols, BLOCK)):
        offs = step * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row.to(tl.int64) * n_cols + offs, mask=offs < n_cols, other=0.0)
        acc += tl.sum(x * x) * (part + 1)
        log(journal, journal_cap, step, acc)
    tl.store(out_ptr + row * tl.num_programs(1) + part, acc)


def _run_steps(x: torch.Tensor, parts: int, journal: Journal, block: int = 32) -> torch.Tensor:
    out = torch.empty(x.shape[0], parts, device=x.device)
    _steps_kernel[(x.shape[0], parts)](x, out, x.shape[1], *journal.args, BLOCK=block)
    return out


def test_a_planted_nan_is_named_by_step_and_program():
    x = torch.randn(6, 4 * 32, device=DEVICE)
    x[4, 2 * 32 + 5] = float("nan")  # row 4, tile 2: programs (4, 0) and (4, 1)
    j = Journal(256, device=DEVICE)
    _run_steps(x, 2, j)
    s = j.summary()
    first = s.first_nonfinite
    assert first is not None and first.step == 2, s.text()
    assert sorted(p.pid for p in first.places) == [(4, 0, 0), (4, 1, 0)]
    assert sorted(p.block for p in first.places) == [4, 10]  # linear: x + 6 * y
    assert all(p.warp is None for p in first.places)  # a Triton entry is a whole program's
    assert s.step(1).nan == 0 and s.step(2).nan == 2 and s.step(3).nan == 2
    assert "first NaN/Inf at step 2: block 4" in s.headline()
    assert s.recorded == 6 * 2 * 4 and s.dropped == 0 and s.guards_intact and s.unwritten == 0


class _ArrivedReversed:
    """A journal whose entries arrived in the reverse order (a GPU appends them as programs finish)."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal

    def __getattr__(self, name: str):
        return getattr(self.journal, name)

    def frame(self):
        return self.journal.frame().iloc[::-1].reset_index(drop=True)


def test_the_places_of_an_anomaly_are_listed_in_program_order_whatever_the_arrival():
    """On the H200 the planted NaN's headline named block 10 before block 4: the buffer holds entries in the order
    programs reached the append."""
    x = torch.randn(6, 4 * 32, device=DEVICE)
    x[4, 2 * 32 + 5] = float("nan")
    j = Journal(256, device=DEVICE)
    _run_steps(x, 2, j)
    s = Journal.summary(_ArrivedReversed(j))  # type: ignore[arg-type]
    assert s.first_nonfinite is not None and [p.block for p in s.first_nonfinite.places] == [4, 10]
    assert "first NaN/Inf at step 2: block 4" in s.headline(), s.headline()


def test_the_frame_has_one_row_per_entry_with_the_layout_fields():
    x = torch.arange(3 * 64, dtype=torch.float32, device=DEVICE).reshape(3, 64) / 64
    j = Journal(64, device=DEVICE)
    _run_steps(x, 1, j)
    df = j.frame()
    assert list(df.columns) == ["slot", "block", "pid_x", "pid_y", "pid_z", "warp", "step", "value", "nonfinite",
                                "written"]
    assert len(df) == 3 * 2 and df["slot"].tolist() == list(range(6))
    assert df["warp"].isna().all() and str(df["warp"].dtype) == "Int64"
    assert df["written"].all() and (df["nonfinite"] == 0).all()
    for row in range(3):  # the values are the running sums, in step order per program
        got = df[df["block"] == row].sort_values("step")["value"].tolist()
        r = x[row].double().cpu()
        want = [float((r[:32] ** 2).sum()), float((r ** 2).sum())]
        assert got == pytest.approx(want, rel=1e-6)


def test_blocks_that_exit_early_show_the_steps_they_never_reached():
    ex = _example("triton_journal")
    s, problems = ex.early_exit(DEVICE)
    assert not problems, "\n".join(problems) + "\n" + s.text()
    assert s.first_missing == 2 and "step 2 never reached by 2 of 12 blocks" in s.headline()
    assert s.step(1).missing_count == 0 and s.step(4).missing_count == 2


def test_an_overflowing_journal_counts_what_it_dropped_and_writes_nothing_past_its_buffer():
    x = torch.randn(16, 4 * 32, device=DEVICE)
    j = Journal(10, device=DEVICE)
    before = j._storage.clone()
    out = _run_steps(x, 1, j)
    assert j.attempted == 64 and j.recorded == 10 and j.dropped == 54
    after = j._storage.cpu()
    start = 64 + HEADER_WORDS  # the guard words, then the header
    end = start + 10 * ENTRY_WORDS
    assert torch.equal(after[:64], before.cpu()[:64]) and torch.equal(after[end:], before.cpu()[end:])
    assert j.guards_intact and (j.entries()[:, 5] != -(2**31)).all()  # every kept slot written
    torch.testing.assert_close(out[:, 0], (x.double() ** 2).sum(1).float().to(out.device), rtol=1e-5, atol=1e-4)
    s = j.summary()
    assert s.dropped == 54 and "54 entries dropped (capacity 10, 64 appends)" in s.headline()
    assert "(entries were dropped" in s.headline() or s.first_missing is None


def test_overwritten_guards_are_detected():
    j = Journal(4, device=DEVICE)
    _run_steps(torch.ones(1, 32, device=DEVICE), 1, j)
    assert j.guards_intact
    j._storage[-1] = 0  # what a write one word past the buffer's guard would do
    j._cache = None
    assert not j.guards_intact and not j.summary().ok
    j.reset()
    assert j.guards_intact and j.attempted == 0 and len(j.frame()) == 0


@triton.jit
def _tile_kernel(x_ptr, journal, journal_cap, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    x = tl.load(x_ptr + pid * BLOCK * BLOCK + tl.arange(0, BLOCK)[:, None] * BLOCK + tl.arange(0, BLOCK)[None, :])
    log_tile(journal, journal_cap, 7, x)


def test_log_tile_logs_the_largest_magnitude_and_counts_nonfinite_elements():
    x = torch.randn(3, 16, 16, device=DEVICE)
    x[0, 1, 2] = -50.0
    x[1, 3, 3] = float("inf")
    x[2, 0, 0] = float("nan")
    x[2, 5, 5] = float("-inf")
    j = Journal(8, device=DEVICE)
    _tile_kernel[(3,)](x, *j.args, BLOCK=16)
    df = j.frame().sort_values("block")
    assert df["value"].iloc[0] == 50.0 and math.isinf(df["value"].iloc[1]) and math.isnan(df["value"].iloc[2])
    assert df["nonfinite"].tolist() == [0, 1, 2] and (df["step"] == 7).all()
    s = j.summary()
    assert s.step(7).nan == 1 and s.step(7).inf == 1 and s.step(7).nonfinite_values == 3
    assert sorted(p.block for p in s.first_nonfinite.places) == [1, 2]


def test_an_outlying_block_is_named_and_plain_data_has_none():
    x = torch.randn(64, 4 * 32, device=DEVICE)
    j = Journal(1024, device=DEVICE)
    _run_steps(x, 1, j)
    assert j.summary().first_outlier is None, j.summary().text()  # 64 blocks of randn: no false alarm
    x[37, 32:64] *= 100.0  # block 37 reads garbage-sized values from tile 1 on
    j.reset()
    _run_steps(x, 1, j)
    s = j.summary()
    assert s.first_outlier is not None and s.first_outlier.step == 1, s.text()
    assert [p.block for p in s.first_outlier.places] == [37]
    assert s.first_nonfinite is None and "first outlier at step 1: block 37" in s.headline()


def test_the_summary_serializes_to_json():
    x = torch.randn(2, 64, device=DEVICE)
    x[1, 40] = float("nan")
    j = Journal(16, device=DEVICE)
    _run_steps(x, 1, j)
    d = json.loads(j.summary().to_json())
    assert d["recorded"] == 4 and d["first_nonfinite"]["step"] == 1
    assert d["first_nonfinite"]["places"][0]["value"] == "nan" and d["first_nonfinite"]["places"][0]["block"] == 1
    assert [s["step"] for s in d["steps"]] == [0, 1]


def test_bad_arguments_are_spec_errors():
    for cap in (0, -1, True, 2**27, 1.5, "64"):
        with pytest.raises(kcheck.SpecError, match="capacity"):
            Journal(cap)
    if not torch.cuda.is_available():
        with pytest.raises(kcheck.SpecError, match="no CUDA GPU"):
            Journal(8, device="cuda")
    with pytest.raises(kcheck.SpecError, match="device"):
        Journal(8, device="gpu0")
    with pytest.raises(kcheck.SpecError, match="outlier_z"):
        Journal(8, device=DEVICE).summary(outlier_z=float("nan"))
    with pytest.raises(kcheck.SpecError, match="journaled"):
        kcheck.Spec(name="x", kernel=torch.neg, reference=torch.neg, inputs=[kcheck.Tensor("N")], journaled=3)


def test_the_triton_examples_say_what_they_must():
    ex = _example("triton_journal")
    for name, scenario in ex.SCENARIOS.items():
        s, problems = scenario(DEVICE)
        assert not problems, f"{name}: " + "\n".join(problems) + "\n" + s.text()


# -- CUDA C ------------------------------------------------------------------------------------------------------------
HEADER_USER = r"""
#include <kcheck/journal.cuh>
extern "C" __global__ void scale(const float* x, float* y, int n, KCHECK_JOURNAL_PARAMS) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;                 // divergent: the warp's active lanes journal
    float v = x[i] * 2.0f;
    kcheck_journal(1, v);
    y[i] = v;
}
"""

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None and not Path("/usr/local/cuda/bin/nvcc").exists(),
                                reason="nvcc not found: the CUDA C header cannot be compiled here")


@needs_nvcc
def test_the_cuda_header_compiles_for_sm_90_through_kcheck_s_build():
    from kcheck.backends._cuda import compile_cubin

    k = kcheck.CudaKernel(HEADER_USER, "scale", grid=(1,), block=(32,))
    res = k.resources()  # nvcc -Xptxas -v for sm_90: no GPU needed
    assert res and res[0].spill_stores == 0
    assert compile_cubin(HEADER_USER, (), 90).stat().st_size > 0  # the build a GPU run uses
    off = kcheck.CudaKernel(HEADER_USER, "scale", grid=(1,), block=(32,), options=("-DKCHECK_JOURNAL_DISABLE",))
    assert off.resources()[0].registers < res[0].registers  # the journal compiled out
    broken = HEADER_USER.replace("kcheck_journal(1, v);", "kcheck_journal(1);")
    with pytest.raises(RuntimeError, match="nvcc failed"):
        kcheck.CudaKernel(broken, "scale", grid=(1,), block=(32,)).resources()


@needs_nvcc
def test_the_cuda_example_compiles_here_and_runs_on_a_gpu(capsys):
    ex = _example("cuda_journal")
    assert ex.main([]) == 0
    if not torch.cuda.is_available():
        assert "compiled for sm_90" in capsys.readouterr().out


@pytest.mark.gpu
def test_cuda_scenarios_on_the_gpu():
    ex = _example("cuda_journal")
    for name, scenario in ex.SCENARIOS.items():
        s, problems = scenario()
        assert not problems, f"{name}: " + "\n".join(problems) + "\n" + s.text()


@pytest.mark.gpu
def test_triton_scenarios_on_the_gpu():
    ex = _example("triton_journal")
    for name, scenario in ex.SCENARIOS.items():
        s, problems = scenario("cuda")
        assert not problems, f"{name}: " + "\n".join(problems) + "\n" + s.text()


# -- the debugger ------------------------------------------------------------------------------------------------------
# A failing Spec, written to a file of its own at test time: a module-level Spec here would be collected by kcheck's
# pytest plugin as tests (and fail), and the debugger's worker re-imports a Spec from its file.
NAN_SPEC = '''
import torch
import triton
import triton.language as tl

import kcheck
from kcheck.journal import Journal, log


@triton.jit
def nan_kernel(x_ptr, out_ptr, n_cols, journal, journal_cap, JOURNAL: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((), dtype=tl.float32)
    for step in range(0, tl.cdiv(n_cols, BLOCK)):
        offs = step * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row.to(tl.int64) * n_cols + offs, mask=offs < n_cols, other=0.0)
        x = tl.where((row == 3) & (step == 1) & (offs == BLOCK + 2), x / 0.0 * 0.0, x)  # the planted bug
        acc += tl.sum(x * x)
        if JOURNAL:
            log(journal, journal_cap, step, acc)
    tl.store(out_ptr + row, acc)


def sumsq(x, journal=None):
    out = torch.empty(x.shape[0], device=x.device, dtype=torch.float32)
    if x.shape[0]:
        args = journal.args if journal is not None else (out, 0)
        nan_kernel[(x.shape[0],)](x, out, x.shape[1], *args, JOURNAL=journal is not None, BLOCK=32)
    return out


nan_in_block_3 = kcheck.Spec(
    name="nan_in_block_3", kernel=sumsq, journaled=sumsq, reference=lambda x: (x * x).sum(-1),
    inputs=[kcheck.Tensor("M", "N")], dims={"M": kcheck.Dim(nominal=8), "N": kcheck.Dim(nominal=96)},
    dtypes=["fp32"], reduce=["N"],
)
'''


@pytest.fixture(scope="module")
def nan_spec(tmp_path_factory):
    path = tmp_path_factory.mktemp("journal_spec") / "nan_in_block_3_spec.py"
    path.write_text(NAN_SPEC)
    spec = importlib.util.spec_from_file_location("nan_in_block_3_spec", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    yield module.nan_in_block_3
    sys.modules.pop(spec.name, None)


def _failing_case(spec):
    return next(c for c in kcheck.matrix(spec) if c.id.startswith("nan_in_block_3[M=8,N=96,fp32,randn"))


def test_the_journaled_variant_runs_on_a_case_here_and_in_a_worker(nan_spec):
    from kcheck._device import detect
    from kcheck.diagnose._journal import journal_case

    case = _failing_case(nan_spec)
    here, why = journal_case(nan_spec, case, detect(), isolate=False)
    assert here is not None, why
    assert here.first_nonfinite.step == 1 and [p.block for p in here.first_nonfinite.places] == [3]
    worker, why = journal_case(nan_spec, case, detect(), isolate=True)  # a process of its own
    assert worker is not None, why
    assert worker.to_dict() == here.to_dict()


def test_a_journaled_variant_that_raises_is_said_not_raised(nan_spec):
    import dataclasses

    from kcheck._device import detect
    from kcheck.diagnose._journal import journal_case

    def broken(x, journal):
        raise ValueError("no journal here")

    spec = dataclasses.replace(nan_spec, journaled=broken)
    summary, why = journal_case(spec, _failing_case(spec), detect(), isolate=False)
    if detect().is_gpu:  # on a GPU a kernel that may crash never runs in the debugger's process
        assert summary is None and "not run" in why
    else:
        assert summary is None and "ValueError: no journal here" in why
    summary, why = journal_case(spec, _failing_case(spec), detect(), isolate=True)  # not at module level: not run
    assert summary is None and "not defined at module level" in why


def test_debug_cites_the_first_step_and_block_of_the_nan(nan_spec, tmp_path):
    report = kcheck.check(nan_spec, cases=_failing_case(nan_spec).id).specs[0]
    assert not report.passed
    diag = kcheck.debug(nan_spec, report=report, budget=60, out_dir=tmp_path, repro=False, maps=False,
                        sanitize=False)
    text = kcheck.format_diagnosis(diag)
    journal = [e for e in diag.experiments if e.axis == "journal"]
    assert len(journal) == 1 and not journal[0].passed, text
    assert "first NaN/Inf at step 1: block 3" in journal[0].detail
    assert any(n.startswith("journal of the smallest failing case") and "step 1: block 3" in n for n in diag.notes)
    assert "first NaN/Inf at step 1: block 3" in text
