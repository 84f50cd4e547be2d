"""Resources compiled for sm_90 without a GPU: ptxas's report parsed, nvcc for CUDA C, Triton's toolchain."""

import shutil
from pathlib import Path

import pytest

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


def test_triton_kernels_compile_for_sm90_without_a_gpu():
    pytest.importorskip("triton")
    import importlib

    from kcheck._resources import spec_resources

    res = spec_resources(importlib.import_module("softmax").spec)
    assert len(res) == 1 and isinstance(res[0], Resources)
    r = res[0]
    assert r.kernel == "softmax_kernel" and r.arch.startswith("sm_90") and 0 < r.registers <= 255
    assert "triton" in r.source


def test_cuda_examples_skip_on_the_cpu_with_their_resources():
    import importlib

    import kcheck
    from kcheck.backends import framework

    spec = importlib.import_module("cuda_block_reduce").spec
    assert framework(spec.kernel) == "cuda"
    report = kcheck.check(spec, tier="quick", resources=True)
    if kcheck._device.detect().is_gpu:
        pytest.skip("on a GPU the cases run (scripts/gpu_validate.sh)")
    assert report.passed and all(c.status is kcheck.Status.SKIPPED for c in report.cases)
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
