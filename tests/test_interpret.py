"""kcheck.interpret: bounds and race checks of Triton kernels in Triton's interpreter, shuffled program
order, and a clear failure on an interpreter whose internals changed.

The buggy kernels are in tests/interpret_kernels/ (their bad lines marked ``# BUG``); the correct ones are the
examples and a few kernels there that use atomics.
"""

from __future__ import annotations

import importlib
import inspect
import os
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
import torch

from kcheck._device import interpreter_active

triton = pytest.importorskip("triton")

pytestmark = pytest.mark.skipif(not interpreter_active(),
                                reason="needs Triton's interpreter (TRITON_INTERPRET=1 before kernels are imported)")

from interpret_kernels import bug_lines  # noqa: E402

import kcheck.interpret as ki  # noqa: E402
from kcheck._findings import deduplicate  # noqa: E402
from kcheck.interpret._compat import internals  # noqa: E402
from kcheck.interpret._launch import Launch, tensor_region  # noqa: E402

N, BLOCK = 1000, 128  # 8 programs; the last one (7) holds elements 896..999 in lanes 0..103


def kernels(name: str) -> ModuleType:
    return importlib.import_module(f"interpret_kernels.{name}")


def example(name: str) -> ModuleType:
    return importlib.import_module(name)  # conftest puts examples/ on sys.path


def same_file(a: str | None, b: str | None) -> bool:
    return a is not None and b is not None and os.path.samefile(a, b)


def gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def only(report: ki.Report, kind: str) -> list[ki.Record]:
    return [r for r in report.records if r.finding.kind == kind]


# -- bounds -----------------------------------------------------------------------------------------------------------
def test_unmasked_tail_load_found_with_line_program_lane_and_tensor() -> None:
    m = kernels("unmasked_tail")
    x, y = torch.randn(N, generator=gen()), torch.randn(N, generator=gen(1))
    with ki.checked() as report:
        out = m.add(x, y)
    assert torch.equal(out, x + y)  # the bad lanes were masked off, the rest ran
    assert report.launches == 1 and report.programs == 8
    recs = report.records
    assert [r.finding.line for r in recs] == bug_lines(m)
    assert [r.tensor for r in recs] == ["x_ptr", "y_ptr"]
    for r, t in zip(recs, (x, y), strict=True):
        f = r.finding
        assert (f.tool, f.kind, f.kernel) == ("interpreter", "out-of-bounds", "add_kernel")
        assert (f.direction, f.size) == ("read", 4)
        assert same_file(f.file, m.__file__)
        assert f.block == (7, 0, 0) and f.thread is None
        assert r.lane == (N - 7 * BLOCK,)  # the first lane past the end
        assert f.address == t.data_ptr() + 4 * N
        assert f.distance == 1 and f.allocation_size == 4 * N  # memcheck's way: the first byte past is 1 byte after
        assert f.count == 8 * BLOCK - N  # lanes out of bounds
        assert "lane (104,)" in f.message and "'x_ptr'" in recs[0].finding.message


def test_off_by_one_mask_found_on_load_and_store() -> None:
    m = kernels("off_by_one")
    x = torch.randn(N, generator=gen())
    with ki.checked() as report:
        out = m.scale(x)
    assert torch.equal(out, 2 * x)
    recs = report.records
    assert [r.finding.line for r in recs] == bug_lines(m)
    assert [(r.finding.direction, r.tensor, r.lane, r.finding.block, r.finding.count, r.finding.distance)
            for r in recs] == [("read", "x_ptr", (104,), (7, 0, 0), 1, 1),
                               ("write", "out_ptr", (104,), (7, 0, 0), 1, 1)]


def test_store_past_the_end_is_found_and_never_reaches_memory() -> None:
    m = kernels("store_past_end")
    x = torch.randn(N, generator=gen())
    buf = torch.full((N + 256,), 7.0)
    out = buf[:N]  # a view: the bytes past it belong to buf, which the kernel was not given
    with ki.checked() as report:
        m.copy(x, out)
    assert torch.equal(out, x)
    assert bool((buf[N:] == 7.0).all()), "the out-of-bounds store reached memory"
    (r,) = report.records
    f = r.finding
    assert (f.line, f.direction, r.tensor, f.block, r.lane) == (bug_lines(m)[0], "write", "out_ptr", (7, 0, 0), (104,))
    assert f.allocation_size == 4 * N  # the view's reach, not its storage's
    assert f.count == 24
    # compute-sanitizer's count ("1 bytes after": the first byte past the end), said in plain words too
    assert f.distance == 1 and "1 bytes after tensor 'out_ptr'" in f.message, f.message
    assert "the access starting right at its end" in f.message, f.message


def test_negative_offset_found_before_the_tensor() -> None:
    m = kernels("negative_offset")
    x = torch.randn(N, generator=gen())
    with ki.checked() as report:
        out = m.diff(x)
    assert torch.equal(out[1:], x[1:] - x[:-1])
    (r,) = report.records
    f = r.finding
    assert (f.line, f.direction, r.tensor, f.block, r.lane) == (bug_lines(m)[0], "read", "x_ptr", (0, 0, 0), (0,))
    assert f.distance == -4 and f.address == x.data_ptr() - 4
    assert "4 bytes before tensor 'x_ptr'" in f.message


def test_out_of_range_gather_index_read_from_data() -> None:
    m = kernels("gather_oob")
    src = torch.randn(500, generator=gen())
    idx = torch.randint(0, 500, (N,), generator=gen(1))
    idx[300] = 510  # program 2, lane 44
    with ki.checked() as report:
        out = m.gather(src, idx)
    ok = torch.arange(N) != 300
    assert torch.equal(out[ok], src[idx[ok]])
    (r,) = report.records
    f = r.finding
    assert (f.line, r.tensor, f.block, r.lane, f.count) == (bug_lines(m)[0], "src_ptr", (2, 0, 0), (44,), 1)
    assert f.address == src.data_ptr() + 4 * 510 and f.distance == 4 * 10 + 1


def _gather_from_a_table_beside_its_index(bad: int) -> tuple[Any, ki.Record]:
    """gather_oob with its 500-float table and its index tensor in one storage, the index 48 bytes after the table
    (as the allocator put them on CI), and index 300 (program 2, lane 44) set to ``bad``: the one finding."""
    m = kernels("gather_oob")
    raw = torch.zeros(2048 + 8 * N, dtype=torch.uint8)
    src = raw[:2000].view(torch.float32)
    src.copy_(torch.randn(500, generator=gen()))
    idx = raw[2048:].view(torch.int64)
    idx.copy_(torch.randint(0, 500, (N,), generator=gen(1)))
    idx[300] = bad
    with ki.checked() as report:
        m.gather(src, idx)
    (r,) = report.records
    return r.finding, r


def test_out_of_range_gather_blamed_on_the_table_when_another_tensor_starts_nearer() -> None:
    """Where the allocator puts the index tensor just past the table (it did on CI), the bad address lies nearer the
    index tensor's start than the table's end; the access's other lanes read the table, so the table is named."""
    f, r = _gather_from_a_table_beside_its_index(510)  # 2040 bytes in: 41 past the table, 8 before the index
    assert (r.tensor, f.block, r.lane, f.distance) == ("src_ptr", (2, 0, 0), (44,), 41), f.message
    assert "41 bytes after tensor 'src_ptr'" in f.message


def test_a_read_past_one_tensor_into_the_next_is_out_of_bounds() -> None:
    """x and y share one storage, y right after x: the unmasked tail of x lands inside y. compute-sanitizer cannot
    see such a read (it lands in memory the process owns), and a check against all the launch's tensors would
    pass it; the pointer comes from x, so it is checked against x."""
    m = kernels("unmasked_tail")
    raw = torch.randn(2 * N + 8 * BLOCK, generator=gen())
    x, y = raw[:N], raw[N:2 * N]
    with ki.checked() as report:
        out = m.add(x, y)
    assert torch.equal(out, x + y)
    recs = report.records
    assert [r.tensor for r in recs] == ["x_ptr", "y_ptr"], [r.finding.message for r in recs]
    f = recs[0].finding
    assert f.address == x.data_ptr() + 4 * N and f.distance == 1 and f.count == 8 * BLOCK - N
    assert "inside tensor 'y_ptr'" in f.message, f.message
    assert "inside tensor" not in recs[1].finding.message  # y's overrun lands in raw's bytes no argument holds


def test_a_gather_index_landing_in_another_argument_is_out_of_bounds() -> None:
    f, r = _gather_from_a_table_beside_its_index(600)  # 2400 bytes into the table: inside the index tensor
    assert (r.tensor, f.block, r.lane, f.distance) == ("src_ptr", (2, 0, 0), (44,), 401), f.message
    assert "inside tensor 'idx_ptr'" in f.message


def test_pointers_picked_from_two_tensors_are_in_bounds() -> None:
    m = kernels("pick_source")
    a, b = torch.randn(N, generator=gen()), torch.randn(N, generator=gen(1))
    with ki.checked() as report:
        out = m.pick(a, b)
    assert torch.equal(out, torch.where(torch.arange(N) % 2 == 0, a, b))
    assert report.ok, report.describe()


def test_an_output_aliasing_its_input_is_in_bounds() -> None:
    m = kernels("off_by_one")
    raw = torch.randn(N + 1, generator=gen())
    x = raw[:N]  # the off-by-one lane reads raw[N], inside no argument but raw's storage
    with ki.checked(tensors={"raw": raw}) as report:
        m.scale(x)
    # raw overlaps x: declared, it may be reached through x's pointer
    assert [r.finding.direction for r in report.records] == ["write"], report.describe()


def test_out_of_range_atomic_is_found_and_skipped() -> None:
    m = kernels("atomic_oob")
    x = torch.rand(N, generator=gen())
    x[517] = 1.0  # bin 16 of 16: program 4, lane 5
    with ki.checked() as report:
        hist = m.histogram(x)
    assert int(hist.sum()) == N - 1  # every other value counted; the bad lane touched nothing
    (r,) = report.records
    f = r.finding
    assert (f.line, f.direction, r.tensor, f.block, r.lane) == (bug_lines(m)[0], "atomic", "hist_ptr", (4, 0, 0), (5,))
    assert f.distance == 1 and f.allocation_size == 64


@pytest.mark.filterwarnings("ignore:tl.make_block_ptr is deprecated")
def test_block_pointer_without_a_column_check_is_found_with_a_2d_lane() -> None:
    m = kernels("block_ptr")
    x = torch.randn(40, 40, generator=gen())
    with ki.checked() as report:
        out = m.tile_copy(x, check_cols=True)
    assert report.ok, report.describe()
    assert torch.equal(out, x)
    with ki.checked() as report:
        out = m.tile_copy(x, check_cols=False)
    assert torch.equal(out, x)
    # Columns 40..47 of rows 0..38 fall in the next row, inside x: only the last row's overread leaves x.
    (r,) = report.records
    f = r.finding
    assert (f.line, r.tensor, f.block, r.lane, f.count) == (bug_lines(m)[0], "x_ptr", (2, 2, 0), (7, 8), 8)


# -- races ------------------------------------------------------------------------------------------------------------
def test_non_atomic_accumulation_across_programs_is_a_race() -> None:
    m = kernels("racy_sum")
    x = torch.randn(N, generator=gen())
    load_line, store_line = bug_lines(m)
    with ki.checked() as report:
        total = m.racy_total(x)
    assert torch.allclose(total, x.sum().reshape(1), atol=1e-4)  # right in the interpreter, which is why it hides
    (ww,) = only(report, "race-WW")
    (rw,) = only(report, "race-RW")
    assert ww.tensor == rw.tensor == "out_ptr"
    f = ww.finding
    assert f.line == store_line and f.source is not None and f.destination is not None
    assert (f.source.line, f.destination.line) == (store_line, store_line)
    assert f.source.block != f.destination.block and f.destination.block == f.block
    assert f.hazards == 7  # programs 1..7 against program 0
    f = rw.finding
    assert f.line == load_line and f.direction == "read"
    assert f.source is not None and f.destination is not None
    assert (f.source.line, f.source.direction, f.destination.line, f.destination.direction) == (
        store_line, "write", load_line, "read")
    assert f.source.block == (0, 0, 0) and f.destination.block == (1, 0, 0)  # program 1 reads what program 0 wrote
    assert same_file(f.file, m.__file__)


def test_atomic_accumulation_is_not_a_race() -> None:
    m = kernels("racy_sum")
    x = torch.randn(N, generator=gen())
    for order in ki.ORDERS:
        with ki.checked(order=order) as report:
            total = m.atomic_total(x)
        assert report.ok, report.describe()
        assert torch.allclose(total, x.sum().reshape(1), atol=1e-4)


def test_reading_a_partial_result_another_program_writes_is_a_race_and_depends_on_order() -> None:
    m = kernels("order_dependent")
    x = torch.randn(N, generator=gen())
    want = torch.cumsum(torch.stack([c.sum() for c in x.split(BLOCK)]), 0)
    (read_line,) = bug_lines(m)
    results = {}
    for order in ki.ORDERS:
        with ki.checked(order=order, seed=3) as report:
            results[order] = m.running_totals(x)
        (r,) = report.records
        f = r.finding
        assert (f.kind, f.line, r.tensor, f.direction) == ("race-RW", read_line, "carry_ptr", "read")
        assert f.source is not None and f.source.line == read_line + 1 and f.source.direction == "write"
        assert f.destination is not None and f.destination.block == f.block
        assert f.source.block is not None and f.block is not None
        assert f.source.block[0] == f.block[0] - 1  # program i reads what program i - 1 writes
        assert f.hazards == 7
    assert torch.allclose(results["sequential"], want, atol=1e-4)
    assert not torch.allclose(results["reversed"], want, atol=1e-4)
    assert not torch.allclose(results["random"], want, atol=1e-4)
    with ki.checked() as report:  # in order, program 1 is the first to read what another (0) wrote
        m.running_totals(x)
    assert report.records[0].finding.block == (1, 0, 0)


def test_programs_run_in_the_order_asked_for() -> None:
    m = kernels("order_dependent")
    seen = {}
    for order, seed in (("sequential", 0), ("reversed", 0), ("random", 5), ("random", 6)):
        with ki.checked(order=order, seed=seed) as report:
            seen[order, seed] = m.tickets(12).tolist()  # ticket[pid]: when program pid ran
        assert report.ok, report.describe()
    assert seen["sequential", 0] == list(range(12))
    assert seen["reversed", 0] == list(range(11, -1, -1))
    assert sorted(seen["random", 5]) == list(range(12)) and seen["random", 5] != list(range(12))
    assert seen["random", 6] != seen["random", 5]
    with ki.checked(order="random", seed=5):
        assert m.tickets(12).tolist() == seen["random", 5]  # reproducible


def test_partial_results_ordered_by_atomics_are_not_a_race() -> None:
    m = kernels("order_dependent")
    x = torch.randn(N, generator=gen())
    for order in ki.ORDERS:
        with ki.checked(order=order) as report:
            total = m.last_block_sum(x)
        assert report.ok, report.describe()
        assert torch.allclose(total, x.sum().reshape(1), atol=1e-4)


def test_declared_benign_races_are_left_out() -> None:
    m = kernels("done_flag")
    x = torch.randn(N, generator=gen())
    with ki.checked() as report:
        m.scale_and_flag(x)
    (r,) = report.records
    assert (r.finding.kind, r.tensor, r.finding.line) == ("race-WW", "done_ptr", bug_lines(m, "# BENIGN")[0])
    for benign in ([("done_ptr", "write-write")], [("scale_and_flag_kernel.done_ptr", "any")], [("*", "race")],
                   [lambda rec: rec.tensor == "done_ptr"]):
        with ki.checked(benign=benign) as report:
            out, done = m.scale_and_flag(x)
        assert report.ok and report.benign == 1, (benign, report.describe())
        assert torch.equal(out, 3 * x) and int(done) == 1
    with ki.checked(benign=[("done_ptr", "read-write")]) as report:  # the wrong pattern leaves it in
        m.scale_and_flag(x)
    assert len(report.records) == 1
    with pytest.raises(ValueError, match="unknown pattern"), ki.checked(benign=[("done_ptr", "sometimes")]):
        pass


def test_races_can_be_turned_off() -> None:
    m = kernels("racy_sum")
    with ki.checked(races=False) as report:
        m.racy_total(torch.randn(N, generator=gen()))
    assert report.ok


# -- views and extra tensors ------------------------------------------------------------------------------------------
def test_a_view_reaches_only_its_own_bytes() -> None:
    m = kernels("unmasked_tail")
    big = torch.randn(N + 100, generator=gen())
    x, y = big[:N], torch.randn(N, generator=gen(1))
    with ki.checked() as report:
        m.add(x, y)
    assert [r.tensor for r in report.records] == ["x_ptr", "y_ptr"]  # past the view, though inside its storage
    with ki.checked(tensors={"big": big}) as report:  # declared: the kernel may reach all of big
        m.add(x, y)
    assert [r.tensor for r in report.records] == ["y_ptr"]


def test_view_regions_follow_shape_and_strides() -> None:
    base = torch.zeros(10, 20)
    r = tensor_region("t", base.t())
    assert r is not None and (r.lo, r.hi) == (base.data_ptr(), base.data_ptr() + 4 * 200)
    r = tensor_region("t", base[2:5, 3:7])
    assert r is not None and r.lo == base.data_ptr() + 4 * (2 * 20 + 3)
    assert r.hi == base.data_ptr() + 4 * (4 * 20 + 6 + 1)
    r = tensor_region("t", base[:, ::3])
    assert r is not None and r.size == 4 * (9 * 20 + 18 + 1)
    r = tensor_region("t", base[:0])
    assert r is not None and r.size == 0
    with pytest.raises(TypeError, match="not a tensor"), ki.checked(tensors={"n": 3}):
        pass


# -- the correct examples ---------------------------------------------------------------------------------------------
def _randn(*shape: int, seed: int = 0, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.randn(*shape, generator=gen(seed)).to(dtype)


EXAMPLE_RUNS: list[tuple[str, str, Any]] = [
    ("vector_add", "N=4096", lambda m: (m.add, (_randn(4096), _randn(4096, seed=1)), {}, torch.add)),
    ("vector_add", "N=4099,BLOCK=128,fp16", lambda m: (
        m.add, (_randn(4099, dtype=torch.float16), _randn(4099, seed=1, dtype=torch.float16)), {"BLOCK": 128},
        torch.add)),
    ("sum_reduction", "128x1024", lambda m: (m.row_sum, (_randn(128, 1024),), {}, lambda x: x.sum(-1))),
    ("sum_reduction", "129x1031,BLOCK_N=128", lambda m: (
        m.row_sum, (_randn(129, 1031),), {"BLOCK_N": 128}, lambda x: x.sum(-1))),
    ("sum_reduction", "transposed 129x131", lambda m: (
        m.row_sum, (_randn(131, 129).t(),), {}, lambda x: x.sum(-1))),
    ("softmax", "128x1024", lambda m: (m.softmax, (_randn(128, 1024),), {}, lambda x: torch.softmax(x, -1))),
    ("softmax", "129x1031,BLOCK_N=256", lambda m: (
        m.softmax, (_randn(129, 1031),), {"BLOCK_N": 256}, lambda x: torch.softmax(x, -1))),
    ("softmax", "strided view 129x129", lambda m: (
        m.softmax, (_randn(129, 300)[:, 7:265:2],), {}, lambda x: torch.softmax(x, -1))),
    ("layernorm", "128x1024", lambda m: (
        m.layernorm, (_randn(128, 1024), _randn(1024, seed=1), _randn(1024, seed=2)), {}, m.reference)),
    ("layernorm", "129x1031,BLOCK_N=256", lambda m: (
        m.layernorm, (_randn(129, 1031), _randn(1031, seed=1), _randn(1031, seed=2)), {"BLOCK_N": 256},
        m.reference)),
    ("gemm", "128x128x128", lambda m: (m.gemm, (_randn(128, 128), _randn(128, 128, seed=1)), {}, torch.matmul)),
    ("gemm", "129x129x129,64x64x32", lambda m: (
        m.gemm, (_randn(129, 129), _randn(129, 129, seed=1)), {"BLOCK_M": 64, "BLOCK_N": 64}, torch.matmul)),
    ("gemm", "17x17x2048 split-K", lambda m: (
        m.gemm, (_randn(17, 2048), _randn(2048, 17, seed=1)), {}, torch.matmul)),
]


@pytest.mark.parametrize(("name", "shape", "build"), EXAMPLE_RUNS, ids=[f"{n}[{s}]" for n, s, _ in EXAMPLE_RUNS])
def test_the_correct_examples_have_no_findings(name: str, shape: str, build: Any) -> None:
    m = example(name)
    fn, args, kwargs, reference = build(m)
    order = "random" if "N=4096" in shape or "split-K" in shape else "sequential"
    with ki.checked(order=order) as report:
        got = fn(*args, **kwargs)
    assert report.launches >= 1
    assert report.ok, report.describe()
    want = reference(*[a.double() for a in args]).to(got.dtype)
    tol = 2e-2 if name == "gemm" or got.dtype == torch.float16 else 1e-4
    assert torch.allclose(got, want, rtol=tol, atol=tol)


# -- reports ----------------------------------------------------------------------------------------------------------
def test_findings_deduplicate_and_describe_like_compute_sanitizer_findings() -> None:
    m = kernels("unmasked_tail")
    x = torch.randn(N, generator=gen())
    with ki.checked() as report:
        m.add(x, x)
        m.add(x, x)
    assert report.launches == 2 and len(report.findings) == 4
    merged = deduplicate(report.findings)
    assert report.deduplicated() == merged and len(merged) == 2 and all(f.count == 48 for f in merged)
    text = report.describe()
    assert "out-of-bounds read of 4 bytes in add_kernel at" in text and "program (7,0,0) lane 104" in text


# -- the patches and the interpreter's internals ----------------------------------------------------------------------
def test_patches_are_in_place_only_inside_the_block() -> None:
    ti = internals()
    before = {k: v.__dict__[k.split(".")[1]] for k, v in (
        ("InterpreterBuilder.create_masked_load", ti.builder_cls), ("GridExecutor.__call__", ti.executor_cls))}
    with ki.checked() as outer:
        with ki.checked(races=False) as inner:
            kernels("unmasked_tail").add(torch.randn(N), torch.randn(N))
        assert ti.builder_cls.__dict__["create_masked_load"] is not before["InterpreterBuilder.create_masked_load"]
    assert inner.launches == 1 and outer.launches == 0  # the innermost block gets the launch
    assert ti.builder_cls.__dict__["create_masked_load"] is before["InterpreterBuilder.create_masked_load"]
    assert ti.executor_cls.__dict__["__call__"] is before["GridExecutor.__call__"]
    out = kernels("racy_sum").atomic_total(torch.ones(N))  # plain interpreter again
    assert float(out) == N


def test_bad_options_are_refused() -> None:
    with pytest.raises(ValueError, match="order"), ki.checked(order="backwards"):
        pass
    with pytest.raises(TypeError, match="predicate"), ki.checked(benign=[("a", "b", "c")]):  # type: ignore[list-item]
        pass


def test_checked_needs_the_interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRITON_INTERPRET", "0")
    with pytest.raises(RuntimeError, match="TRITON_INTERPRET=1"), ki.checked():
        pass


@pytest.fixture
def fresh_internals() -> Any:
    internals.cache_clear()
    yield
    internals.cache_clear()


def test_a_missing_interpreter_method_fails_clearly(monkeypatch: pytest.MonkeyPatch, fresh_internals: Any) -> None:
    ti_cls = importlib.import_module("triton.runtime.interpreter").InterpreterBuilder
    monkeypatch.delattr(ti_cls, "create_masked_load")
    with pytest.raises(ki.InterpreterMismatch, match=rf"triton {triton.__version__}.*create_masked_load was not found"):
        with ki.checked():
            pass


def test_renamed_parameters_fail_clearly(monkeypatch: pytest.MonkeyPatch, fresh_internals: Any) -> None:
    ti_cls = importlib.import_module("triton.runtime.interpreter").InterpreterBuilder

    def create_atomic_rmw(self: Any, op: Any, pointer: Any, val: Any, mask: Any, sem: Any, scope: Any) -> None:
        raise AssertionError

    monkeypatch.setattr(ti_cls, "create_atomic_rmw", create_atomic_rmw)
    with pytest.raises(ki.InterpreterMismatch, match=r"create_atomic_rmw.*other parameters"), ki.checked():
        pass


def test_a_new_memory_path_in_the_interpreter_fails_clearly(monkeypatch: pytest.MonkeyPatch,
                                                            fresh_internals: Any) -> None:
    module = importlib.import_module("triton.runtime.interpreter")
    source = Path(inspect.getsourcefile(module) or "").read_text()
    extra = "\n\nclass Extra:\n    def create_gather_load(self, p):\n        return _interpreter.load(p)\n"
    real = inspect.getsource
    monkeypatch.setattr(inspect, "getsource", lambda obj: source + extra if obj is module else real(obj))
    with pytest.raises(ki.InterpreterMismatch, match=r"_interpreter.load is called from .*Extra.create_gather_load"):
        with ki.checked():
            pass


def test_a_grid_loop_kcheck_cannot_follow_is_refused() -> None:
    launch = Launch("k", "reversed", np.random.default_rng(0), races=False)
    launch.set_grid((2, 3, 1))
    assert launch.next_program(0, 0, 0) == (1, 2, 0)  # reversed: the last program first
    assert launch.next_program(0, 2, 0) is None  # skipped (0, 1, 0): not the loop kcheck knows


def test_a_grid_loop_kcheck_cannot_follow_fails_clearly_in_a_launch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Launch, "next_program", lambda self, x, y, z: None)
    with pytest.raises(ki.InterpreterMismatch, match=rf"triton {triton.__version__}.*program \(0,0,0\)"):
        with ki.checked(order="reversed"):
            kernels("racy_sum").atomic_total(torch.ones(N))


# ---- through kcheck.check: findings fail the case, program order is an option ------------------------------------


def _engine_spec(name, kernel, reference):
    import kcheck

    return kcheck.Spec(name=name, kernel=kernel, reference=reference, inputs=[kcheck.Tensor("N")],
                       dims={"N": kcheck.Dim(nominal=1024, real=())}, dtypes=["fp32"])


def test_check_fails_a_racy_accumulation_that_the_interpreter_computes_right():
    from interpret_kernels.racy_sum import racy_total

    import kcheck

    spec = _engine_spec("racy", racy_total, lambda x: x.sum().reshape(1))
    res = kcheck.check(spec, cases="racy[N=1024,fp32,randn,seed=0]").cases[0]
    assert res.status is kcheck.Status.FAILED
    assert res.comparisons[0].mismatches == 0  # the sequential interpreter gets the sum right ...
    assert {f.kind for f in res.findings} >= {"race-WW"}  # ... the race check does not
    off = kcheck.check(spec, cases="racy[N=1024,fp32,randn,seed=0]", interpreter_checks=False).cases[0]
    assert off.status is kcheck.Status.PASSED  # without the checks the bug hides


def test_reversed_program_order_exposes_an_order_dependent_kernel():
    from interpret_kernels.order_dependent import running_totals

    import kcheck

    spec = _engine_spec("totals", running_totals,
                        lambda x: x.reshape(-1, 128).sum(-1).cumsum(0) if x.numel() % 128 == 0 else None)
    case = "totals[N=1024,fp32,randn,seed=0]"
    plain = kcheck.check(spec, cases=case, interpreter_checks=False).cases[0]
    assert plain.status is kcheck.Status.PASSED  # in order, the running totals come out right
    rev = kcheck.check(spec, cases=case, interpreter_checks=True, order="reversed").cases[0]
    assert rev.status is kcheck.Status.FAILED and rev.comparisons[0].mismatches > 0
    assert any(f.kind == "race-RW" for f in rev.findings)


def test_check_refuses_at_once_on_an_interpreter_it_cannot_patch(monkeypatch):
    import pytest
    import torch
    from interpret_kernels.unmasked_tail import add as add_unmasked

    import kcheck
    from kcheck.interpret import InterpreterMismatch

    def broken():
        raise InterpreterMismatch("cannot check kernels in triton 9.9's interpreter: create_masked_load changed")

    monkeypatch.setattr("kcheck.interpret.internals", broken)
    spec = kcheck.Spec(name="t", kernel=add_unmasked, reference=torch.add,
                       inputs=[kcheck.Tensor("N"), kcheck.Tensor("N")], dtypes=["fp32"])
    with pytest.raises(kcheck.EnvironmentProblem, match=r"triton 9\.9.*--no-interpreter-checks"):
        kcheck.check(spec, tier="quick")
    assert kcheck.check(spec, cases="t[N=128,fp32,randn,seed=0]", interpreter_checks=False).cases


def test_a_scalar_mask_on_a_one_element_store_is_broadcast_not_used_as_indices() -> None:
    """``tl.store(out + b + tl.arange(0, 1), s, mask=b < B)``: the interpreter hands the scalar mask over as an
    integer array, which the bounds check used as indices ("index 1 is out of bounds for axis 0 with size 1"): a
    correct held-out control was failed so. The mask is lanes; programs past B store nothing and nothing is out of
    bounds."""
    x = torch.randn(4, 64, generator=gen())
    with ki.checked([x]) as report:
        out = kernels("scalar_mask").rowsum(x, programs=6)
    assert torch.allclose(out, x.sum(1), atol=1e-5)
    assert report.records == []
