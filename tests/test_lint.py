"""kcheck.lint: static checks of CUDA C and Triton sources.

The cases in tests/lint_cases mark each line that must be reported with ``EXPECT: <kind> [severity]``; every other
line of those files must stay quiet (the negatives: casts, size_t, constexpr-only products, masked accesses, barriers
under uniform branches). The planted bugs of the zoo, the interpreter and sanitizer kernels and the compute-sanitizer
fixtures are found at their lines; the correct examples give no finding at all.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kcheck._findings import Finding
from kcheck.lint import KINDS, format_finding, format_findings, lint_path, lint_source

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
CASES = TESTS / "lint_cases"
EXPECT = re.compile(r"EXPECT: ([\w-]+)(?: (error|warning))?")


def _expected(path: Path) -> set[tuple[int, str]]:
    return {(i, m.group(1)) for i, line in enumerate(path.read_text().splitlines(), 1)
            if (m := EXPECT.search(line))}


def _severities(path: Path) -> dict[tuple[int, str], str]:
    return {(i, m.group(1)): m.group(2) for i, line in enumerate(path.read_text().splitlines(), 1)
            if (m := EXPECT.search(line)) and m.group(2)}


def _got(findings: list[Finding]) -> set[tuple[int, str]]:
    return {(f.line or 0, f.kind) for f in findings}


def _bug_lines(path: Path, marker: str = "BUG") -> list[int]:
    return [i for i, line in enumerate(path.read_text().splitlines(), 1) if marker in line]


@pytest.mark.parametrize("name", ["overflow.cu", "barriers.cu", "triton_overflow.py", "triton_masks.py",
                                  "triton_atomics.py", "cuda_in_string.py"])
def test_cases_exact_lines(name: str) -> None:
    path = CASES / name
    findings = lint_path(path)
    assert _got(findings) == _expected(path), "\n" + format_findings(findings)
    for f in findings:
        assert f.tool == "lint" and f.kind in KINDS and f.severity in ("error", "warning")
        assert f.file == str(path) and f.kernel and f.message
        want = _severities(path).get((f.line or 0, f.kind))
        assert want is None or f.severity == want, format_finding(f)


def test_overflow_message_names_the_declaration_and_the_fix() -> None:
    path = CASES / "overflow.cu"
    (f,) = [f for f in lint_path(path) if f.line == 12]
    assert f.kernel == "rows_int" and f.severity == "error"
    assert "`idx * n`" in f.message and "declared at line 9" in f.message and "(int64_t)idx * n" in f.message


def test_barrier_message_names_the_condition() -> None:
    (f, *_) = [f for f in lint_path(CASES / "barriers.cu") if f.kernel == "branch_on_thread"]
    assert f.line == 9 and "`t < 32` (line 7)" in f.message


def test_triton_messages_name_the_product_and_the_cast() -> None:
    findings = {f.line: f for f in lint_path(CASES / "triton_overflow.py")}
    assert "`row * stride_row`" in findings[12].message and "row.to(tl.int64) * stride_row" in findings[12].message
    assert findings[30].severity == "warning" and "pid.to(tl.int64) * BLOCK" in findings[30].message


def test_zoo_planted_bugs() -> None:
    zoo = TESTS / "zoo_kernels"
    (f,) = lint_path(zoo / "int32_overflow.py")
    assert (f.kind, f.line, f.severity, f.kernel) == ("triton-pid-stride-int32", 20, "warning", "add_kernel_i32")
    (f,) = lint_path(zoo / "missing_tail_mask.py")
    assert (f.kind, f.line, f.severity, f.kernel) == ("triton-unmasked-access", 26, "error", "row_sum_kernel")
    (f,) = lint_path(zoo / "cuda_int32_overflow.py")  # the CUDA C kernel in the Python string, at its .py line
    assert (f.kind, f.line, f.severity, f.kernel) == ("int32-index-overflow", 17, "error", "scale_rows")
    (f,) = lint_path(zoo / "cuda_divergent_barrier.py")
    assert (f.kind, f.line, f.severity, f.kernel) == ("divergent-barrier", 22, "error", "shift")
    planted = ("int32_overflow.py", "missing_tail_mask.py", "cuda_int32_overflow.py", "cuda_divergent_barrier.py")
    others = [f for f in lint_path(zoo) if Path(f.file or "").name not in planted]
    assert others == [], format_findings(others)


@pytest.mark.parametrize("name", ["store_past_end.py", "unmasked_tail.py"])
def test_interpreter_kernels_unmasked(name: str) -> None:
    path = TESTS / "interpret_kernels" / name
    lines = sorted(f.line or 0 for f in lint_path(path) if f.kind == "triton-unmasked-access")
    assert lines == _bug_lines(path)


def test_sanitizer_kernels() -> None:
    kernels = TESTS / "sanitize_kernels"
    path = kernels / "cuda_divergent_barrier.py"
    assert _got(lint_path(path)) == {(line, "divergent-barrier") for line in _bug_lines(path)}
    path = kernels / "triton_oob_load.py"
    assert _got(lint_path(path)) == {(line, "triton-unmasked-access") for line in _bug_lines(path)}
    for name in ("cuda_missing_sync.py", "triton_uninit.py"):
        assert lint_path(kernels / name) == []


def test_compute_sanitizer_fixtures() -> None:
    fix = TESTS / "fixtures" / "compute-sanitizer"
    assert _got(lint_path(fix / "bugs.cu")) == {(5, "divergent-barrier")}
    assert _got(lint_path(fix / "bugs2.cu")) == {(3, "divergent-barrier"), (4, "divergent-barrier")}
    assert lint_path(fix / "clean.cu") == []


def test_examples_are_clean() -> None:
    findings = lint_path(ROOT / "examples")
    assert findings == [], format_findings(findings)


@pytest.mark.parametrize("path", sorted(p for p in (ROOT / "examples").glob("*.py")
                                       if "@triton.jit" in p.read_text() or "__global__" in p.read_text()),
                         ids=lambda p: p.name)
def test_examples_are_clean_because_of_their_casts(path: Path) -> None:
    """Not a vacuous pass: without their int64 casts, every Triton and CUDA C example is flagged (the static checks
    read those two languages)."""
    text = path.read_text()
    if "__global__" in text:
        kind, text = "int32-index-overflow", text.replace("(size_t)", "").replace("(int64_t)", "")
    else:
        kind, text = "triton-pid-stride-int32", text.replace(".to(tl.int64)", "")
    assert kind in {f.kind for f in lint_source(text, path)}


def test_unparsable_python_is_a_warning_not_an_exception(tmp_path: Path) -> None:
    (f,) = lint_source("@triton.jit\ndef k(x_ptr:\n    pass\n", "broken.py")
    assert (f.kind, f.severity, f.file, f.tool) == ("unparsable", "warning", "broken.py", "lint")
    assert f.line is not None and "no static check ran" in f.message
    (tmp_path / "broken.py").write_text("def (:\n")
    (tmp_path / "ok.cu").write_text("__global__ void k(float* a) { a[threadIdx.x] = 0.f; }\n")
    assert [(Path(f.file or "").name, f.kind) for f in lint_path(tmp_path)] == [("broken.py", "unparsable")]


def test_garbage_cuda_never_raises() -> None:
    for text in ("", "}}}{{{", "__global__ void k( { if (threadIdx.x) __syncthreads(); ",
                 "int main() { k<<<1, 32>>>(a); return 0; }", "#define X(a) a[blockIdx.x * n]\n" * 3,
                 "__global__ void k(int n) { int i = blockIdx.x; auto f = [&](int j) { return i * n + j; }; }"):
        assert isinstance(lint_source(text, "x.cu"), list)


def test_folder_walk_skips_hidden_and_caches(tmp_path: Path) -> None:
    bad = "__global__ void k(float* s) { if (threadIdx.x < 2) { __syncthreads(); } }\n"
    for sub in (".hidden", "__pycache__", ".venv", "src"):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "k.cu").write_text(bad)
    (tmp_path / "src" / "notes.txt").write_text(bad)
    assert [Path(f.file or "").parent.name for f in lint_path(tmp_path)] == ["src"]


_STAGED = """
#define SEG 128
#define HALF 2
__global__ void smooth5(const float* x, float* out, int n) {
    __shared__ float tile[SEG + 2 * HALF];
    const int base = blockIdx.x * SEG;
    const int col = base + threadIdx.x;
    if (blockIdx.x * SEG >= n) return;
    %s
    for (int k = threadIdx.x; k < SEG + 2 * HALF; k += blockDim.x)
        tile[k] = x[min(max(base + k - HALF, 0), n - 1)];
    __syncthreads();
    %s
    float acc = 0.0f;
    for (int k = 0; k <= 2 * HALF; ++k) acc += tile[threadIdx.x + k];
    out[col] = acc / (2 * HALF + 1);
}
"""


def test_a_thread_that_returns_before_staging_shared_memory_and_its_barrier_is_flagged() -> None:
    """A five-point smoothing staged in shared memory whose bound check returns before the staging loop: the threads
    past the series' end never load the halo the last threads read after the barrier (a held-out round's Spencer
    average and tridiagonal product, both planted divergent barriers of this form, had no static finding). The same
    check after the barrier, and a return on the block index alone, are fine."""
    early = lint_source(_STAGED % ("if (col >= n) return;", ""), "k.cu")
    assert [(f.kind, f.severity, f.line) for f in early] == [("divergent-barrier", "warning", 9)]
    assert "tile" in early[0].message and "col >= n" in early[0].message
    assert lint_source(_STAGED % ("", "if (col >= n) return;"), "k.cu") == []
    assert lint_source(_STAGED % ("if (blockIdx.x >= n) return;", ""), "k.cu") == []


def test_a_return_before_the_staging_is_flagged_in_kernels_written_elsewhere() -> None:
    """Two divergent-barrier bugs of held-out zoos (written by other sessions, from the class list) moved their bound
    check's return ahead of the shared-memory staging; no example and no control is flagged so."""
    tests = Path(__file__).resolve().parent
    for path, line in (("zoo_heldout24/hx24_cuda_tridiag_matvec.py", 23),
                       ("zoo_heldout37/hx37_cuda_spencer_moving_average.py", 32)):
        found = [f for f in lint_path(tests / path) if f.kind == "divergent-barrier"]
        assert [(f.line, f.severity) for f in found] == [(line, "warning")], (path, found)
    quiet = [tests.parent / "examples", *sorted(tests.glob("zoo_heldout*/*_ok.py"))]
    assert not [f for p in quiet for f in lint_path(p) if f.kind == "divergent-barrier"]


def test_language_from_suffix_or_argument() -> None:
    src = "__global__ void k(float* s) { if (threadIdx.x < 2) { __syncthreads(); } }\n"
    assert [f.kind for f in lint_source(src, "k.cuh")] == ["divergent-barrier"]
    assert [f.kind for f in lint_source(src, "k.txt", language="cuda")] == ["divergent-barrier"]
    with pytest.raises(ValueError, match="language"):
        lint_source(src, "k.txt")


def test_jit_spellings() -> None:
    body = ("    pid = tl.program_id(0)\n    offs = pid * stride + tl.arange(0, BLOCK)\n"
            "    tl.store(x_ptr + offs, 0.0, mask=offs < n)\n")
    sig = "def k(x_ptr, stride, n, BLOCK: tl.constexpr):\n"
    for head in ("import triton\nimport triton.language as tl\n@triton.jit\n",
                 "from triton import jit\nimport triton.language as tl\n@jit\n",
                 "import triton\nimport triton.language as tl\n@triton.autotune(configs=[], key=[])\n@triton.jit\n",
                 "import triton\nfrom triton import language as tl\n@triton.jit(do_not_specialize=['n'])\n"):
        src = head + sig + body
        line = src.splitlines().index("    offs = pid * stride + tl.arange(0, BLOCK)") + 1
        assert _got(lint_source(src, "k.py")) == {(line, "triton-pid-stride-int32")}, head
    assert lint_source("import triton.language as tl\n" + sig + body, "plain.py") == []  # not a kernel


def test_format() -> None:
    f = Finding(tool="lint", kind="divergent-barrier", severity="error", message="m", kernel="k", file="a.cu", line=3)
    assert format_finding(f) == "a.cu:3: error: [divergent-barrier] in k: m"
    assert format_findings([f]).splitlines()[-1] == "1 error, 0 warnings"
    assert format_findings([]) == "no findings"


def test_a_mask_bounded_by_two_int32_sizes_is_flagged_in_kernels_written_elsewhere() -> None:
    """Three kernels of held-out round 15 (written by another session) bound a flat mask by ``M * N``; on the H200 the
    past-2**31 case of two of them stored nothing. The product is found at its line, the int64-cast form is not."""
    zoo = Path(__file__).resolve().parent / "zoo_heldout15"
    for name, lines in (("hx15_reglu_ok.py", {22, 34}), ("hx15_bias_dropout_add.py", {23}), ("hx15_dyt.py", {39})):
        found = {f.line for f in lint_path(zoo / name) if f.kind == "triton-size-product-int32"}
        assert found == lines, (name, found)
        assert all(f.severity == "warning" for f in lint_path(zoo / name) if f.kind == "triton-size-product-int32")


def test_a_total_loaded_back_in_the_launch_that_adds_into_it_is_flagged_in_kernels_written_elsewhere() -> None:
    """Four race bugs of held-out zoos (written by other sessions, from the class list) add a partial result
    atomically and load the total back in the same kernel; no example and no control does."""
    tests = Path(__file__).resolve().parent
    for path, line in (("zoo_heldout/ho_absmax_quant.py", 27), ("zoo_heldout8/hx8_absmax_normalize.py", 18),
                       ("zoo_heldout16/hx16_loudness_normalize.py", 24),
                       ("zoo_heldout17/hx17_particle_weight_normalize.py", 30)):
        found = [f for f in lint_path(tests / path) if f.kind == "triton-atomic-readback"]
        assert [(f.line, f.severity) for f in found] == [(line, "warning")], (path, found)
    quiet = [tests.parent / "examples", *sorted(tests.glob("zoo_heldout*/*_ok.py"))]
    assert not [f for p in quiet for f in lint_path(p) if f.kind == "triton-atomic-readback"]


_GLOBAL_KERNEL = '''
import triton
import triton.language as tl

EPS = 1e-8
SCALE = 10.0 / 3.0
BLOCK_DEFAULT = tl.constexpr(256)
HALF: tl.constexpr = 0.5
NAME = "row"


@triton.jit
def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    y = SCALE * x / (x + EPS) * HALF + BLOCK_DEFAULT
    tl.store(out_ptr + offs, y, mask=offs < n)


@triton.jit
def shadowed(x_ptr, n, EPS):
    SCALE = 2.0
    tl.store(x_ptr, SCALE * EPS)


def host(x):
    return x * SCALE
'''


def test_a_kernel_reading_a_plain_module_level_value_is_flagged_where_a_gpu_compile_refuses_it():
    """Triton's compiler refuses a global that is not a tl.constexpr instance (round 22's SNR in dB rows raised a
    CompilationError on every case of an H100, and passed its writer's CPU runs; round 9's JS divergence rows read
    `LN2` so, and its smallest case on the H200 was a compile error): the interpreter reads it."""
    found = [f for f in lint_source(_GLOBAL_KERNEL, "k.py") if f.kind == "triton-global-not-constexpr"]
    assert sorted((f.kernel, f.line, f.severity) for f in found) == [("k", 16, "error")] * 3, found
    assert {f.message.split("`")[1] for f in found} == {"SCALE", "EPS", "HALF"}
    assert "tl.constexpr" in found[0].message


def test_a_global_annotated_as_constexpr_is_flagged_as_a_gpu_compile_refuses_it_too():
    """Round 37's geodetic control declared `A_KM: tl.constexpr = 6378.137` and raised a CompilationError on every
    case of an H100 (triton 3.6): Triton's compiler (3.2 on) accepts only `tl.constexpr(...)` instances, and says
    the annotated form is not supported. The interpreter on this CPU ran it."""
    path = Path(__file__).parent / "zoo_heldout37" / "hx37_geodetic_to_ecef_ok.py"
    found = [f for f in lint_path(path) if f.kind == "triton-global-not-constexpr"]
    assert sorted(f.message.split("`")[1] for f in found) == ["A_KM", "E2"], found
