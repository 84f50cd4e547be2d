"""Resources compiled for sm_90 without a GPU: ptxas's report parsed, nvcc for CUDA C, Triton's toolchain."""

import shutil
from pathlib import Path

import pytest
import torch
import triton
import triton.language as tl

from kcheck._resources import Resources, parse_ptxas

FIXTURES = Path(__file__).parent / "fixtures" / "compute-sanitizer"

REPORT = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z7divsyncPf' for 'sm_90'
ptxas info    : Function properties for _Z7divsyncPf
    8 bytes stack frame, 16 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 255 registers, used 1 barriers, 256 bytes smem
ptxas info    : Compiling entry function '_Z4racePf' for 'sm_90'
ptxas info    : Function properties for _Z4racePf
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 12 registers, used 0 barriers
"""


def test_parse_ptxas_report():
    a, b = parse_ptxas(REPORT)
    assert (a.kernel, a.arch, a.registers, a.spill_stores, a.spill_loads, a.shared_bytes, a.stack_bytes) == (
        "_Z7divsyncPf", "sm_90", 255, 16, 12, 256, 8)
    assert a.warning() == ("slow for no reason: spilling: _Z7divsyncPf spills 16 bytes (stores) and 12 bytes (loads) "
                           "to local memory with 255 registers on sm_90")
    assert (b.registers, b.spills, b.warning()) == (12, False, None)
    assert parse_ptxas("nothing here") == []


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on this machine")
def test_cuda_resources_match_nvcc_run_by_hand():
    import subprocess

    from kcheck.backends._cuda import cuda_resources

    source = (FIXTURES / "bugs.cu").read_text()
    ours = {r.kernel: r for r in cuda_resources(source)}
    by_hand = subprocess.run(["nvcc", "-arch=sm_90", "-Xptxas", "-v", "-cubin", "-o", "/tmp/kcheck-bugs.cubin",
                              str(FIXTURES / "bugs.cu")], capture_output=True, text=True)
    expected = {r.kernel: r for r in parse_ptxas(by_hand.stderr + by_hand.stdout)}
    assert set(ours) == set(expected) == {"_Z6uninitPKfPf", "_Z7divsyncPf", "_Z4racePf", "_Z9oob_writePfi"}
    for k, r in ours.items():
        assert (r.registers, r.spill_stores, r.spill_loads, r.shared_bytes) == (
            expected[k].registers, expected[k].spill_stores, expected[k].spill_loads, expected[k].shared_bytes)
    assert ours["_Z4racePf"].shared_bytes == 256


@pytest.mark.interpreter
def test_triton_kernels_compile_for_sm90_without_a_gpu():
    pytest.importorskip("triton")
    import importlib

    from kcheck.run import spec_resources

    res = spec_resources(importlib.import_module("softmax").spec)
    assert len(res) == 1 and isinstance(res[0], Resources)
    r = res[0]
    assert r.kernel == "softmax_kernel" and r.arch.startswith("sm_90") and 0 < r.registers <= 255
    assert "triton" in r.source


@pytest.mark.interpreter
@triton.jit
def _twice(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, 2 * tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def twice(x: torch.Tensor, out: torch.Tensor) -> None:  # writes into the buffer the caller gives
    _twice[(triton.cdiv(x.numel(), 128),)](x, out, x.numel(), BLOCK=128)


def test_a_launcher_with_declared_outputs_gets_its_resources():
    """A launcher that writes into buffers the caller allocates (``Spec(outputs=...)``) is given them for the launch
    that learns its kernels, as a case gives them (the report's launch called it with the inputs only)."""
    import kcheck
    from kcheck.run import spec_resources

    spec = kcheck.Spec(name="twice_into", kernel=twice, reference=lambda x: 2 * x, inputs=[kcheck.Tensor("N")],
                       outputs=[kcheck.Tensor("N")], dims={"N": kcheck.Dim(nominal=256, real=())})
    res = spec_resources(spec)
    assert res and res[0].registers > 0


def test_cuda_examples_skip_on_the_cpu_with_their_resources():
    import importlib

    import kcheck
    from kcheck.backends import framework

    spec = importlib.import_module("cuda_block_reduce").spec
    assert framework(spec.kernel) == "cuda"
    report = kcheck.check(spec, tier="quick", resources=True)
    if kcheck._device.detect().is_gpu:
        pytest.skip("on a GPU the cases run (scripts/gpu_validate.sh)")
    assert all(c.status is kcheck.Status.SKIPPED for c in report.cases)
    assert not report.passed and report.specs[0].machine_only  # not run here: never a pass
    assert "CUDA C kernels run on a GPU only" in report.cases[0].reasons[0]
    if shutil.which("nvcc"):
        (r,) = report.specs[0].resources
        assert r.kernel == "row_sum" and r.shared_bytes == 1024 and r.registers > 0


def test_cuda_kernel_arguments_are_checked():
    import kcheck

    with pytest.raises(kcheck.SpecError, match="give the kernel's C identifier"):
        kcheck.CudaKernel("__global__ void f(){}", "not a name", grid=(1,), block=(1,))
    with pytest.raises(kcheck.SpecError, match=r"CudaKernel\(source\)='missing\.cu'"):
        kcheck.CudaKernel("missing.cu", "f", grid=(1,), block=(1,))
    with pytest.raises(kcheck.SpecError, match=r"CudaKernel\(options\)='--use_fast_math'.*sequence of nvcc flags"):
        kcheck.CudaKernel("__global__ void f(){}", "f", grid=(1,), block=(1,), options="--use_fast_math")


needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on this machine")


@needs_nvcc
def test_cuda_source_in_a_python_file_keeps_that_files_line_numbers(tmp_path, monkeypatch):
    """nvcc (and so -lineinfo, and compute-sanitizer's records) name the .py file and the line of the source text."""
    import importlib

    from kcheck.backends._cuda import compile_cubin

    monkeypatch.setenv("KCHECK_CACHE_DIR", str(tmp_path))
    module = importlib.import_module("cuda_block_reduce")
    k = module.row_sum_kernel
    path = Path(module.__file__).resolve()
    lines = path.read_text().splitlines()
    line, opening = lines.index("    buf[t] = acc;") + 1, lines.index('SOURCE = r"""') + 1
    assert k._located.startswith(f'#line {opening} "{path}"\n')
    broken = k._located.replace("buf[t] = acc;", "buf[t] = acc +;")
    with pytest.raises(RuntimeError, match=rf"{path.name}\({line}\): error"):
        compile_cubin(broken, (), 90)


@needs_nvcc
def test_cubins_are_compiled_once_and_cached_on_disk(tmp_path, monkeypatch):
    from kcheck.backends import _cuda

    monkeypatch.setenv("KCHECK_CACHE_DIR", str(tmp_path))
    source = 'extern "C" __global__ void f(float* x) { x[threadIdx.x] = 1.0f; }'
    first = _cuda.compile_cubin(source, (), 90)
    assert first.exists() and first.parent == tmp_path / "cuda"
    calls = []
    real = _cuda.subprocess.run
    monkeypatch.setattr(_cuda.subprocess, "run", lambda *a, **k: calls.append(a) or real(*a, **k))
    assert _cuda.compile_cubin(source, (), 90) == first
    assert calls == []  # nvcc's version is cached too: nothing ran
    assert _cuda.compile_cubin(source, ("-DX=1",), 90) != first and len(calls) == 1


@needs_nvcc
def test_the_kernels_options_reach_the_resource_report():
    import importlib

    gemm = importlib.import_module("cuda_gemm").gemm_kernel
    default = gemm.resources()[0].registers
    capped = type(gemm)(gemm.source, gemm.name, grid=gemm.grid, block=gemm.block, options=("-maxrregcount=24",))
    assert capped.resources()[0].registers <= 24 < default


@needs_nvcc
@pytest.mark.parametrize("module", ["cuda_block_reduce", "cuda_gemm", "cuda_transpose"])
def test_the_cuda_examples_resources_match_nvcc_run_by_hand(module, tmp_path):
    import importlib
    import subprocess

    mod = importlib.import_module(module)
    (k,) = [v for v in vars(mod).values() if type(v).__name__ == "CudaKernel"]
    src = tmp_path / f"{module}.cu"
    src.write_text(k.source)
    by_hand = subprocess.run(["nvcc", "-arch=sm_90", "-Xptxas", "-v", "-cubin", "-o", str(tmp_path / "k.cubin"),
                              str(src)], capture_output=True, text=True)
    (expected,) = parse_ptxas(by_hand.stdout + by_hand.stderr)
    (ours,) = k.resources()
    assert (ours.kernel, ours.registers, ours.spill_stores, ours.spill_loads, ours.shared_bytes, ours.stack_bytes) == (
        expected.kernel, expected.registers, expected.spill_stores, expected.spill_loads, expected.shared_bytes,
        expected.stack_bytes)
