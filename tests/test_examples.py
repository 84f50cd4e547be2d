"""The shipped examples pass, and the planted bugs fail with a message that names the cases and where errors lie.

Triton kernels run in Triton's interpreter here (the plugin sets TRITON_INTERPRET=1 before this module imports
them). The quick tier keeps this test fast; the default tier over 20 seeds is in the slow tier.
"""

import importlib

import pytest
import torch

import kcheck
from kcheck import Status, Verdict
from kcheck._device import interpreter_active

EXAMPLES = ["vector_add", "sum_reduction", "softmax", "layernorm", "gemm"]


def _spec(module: str, attr: str = "spec") -> kcheck.Spec:
    return getattr(importlib.import_module(module), attr)


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_passes(name):
    report = kcheck.check(_spec(name), tier="quick")
    assert report.passed, kcheck.format_report(report)
    assert report.specs[0].framework == "triton"
    assert report.specs[0].count(Status.PASSED) > 5


@pytest.mark.slow
@pytest.mark.parametrize("name", EXAMPLES)
def test_example_passes_over_20_seeds(name):
    report = kcheck.check(_spec(name), seeds=20)
    assert report.passed, kcheck.format_report(report)


def _case(spec, case_id):
    report = kcheck.check(spec, cases=case_id)
    assert [c.id for c in report.cases] == [case_id]
    return report.cases[0]


def _where(res):
    return [c.location.text for c in res.comparisons if not c.passed]


def test_missing_tail_mask_fails_off_the_power_of_two_only():
    spec = _spec("zoo_kernels.missing_tail_mask")
    assert _case(spec, "missing_tail_mask[M=128,N=1024,fp32,randn,BLOCK_N=1024,seed=0]").status is Status.PASSED
    for n in (17, 33, 129):
        res = _case(spec, f"missing_tail_mask[M=128,N={n},fp32,randn,BLOCK_N=1024,seed=0]")
        assert res.status is Status.FAILED
    text = kcheck.format_case(_case(spec, "missing_tail_mask[M=129,N=129,fp32,randn,BLOCK_N=1024,seed=0]"))
    assert "Where: everywhere (" in text
    if not interpreter_active():
        return  # on a GPU the garbage read is only seen in the output (compute-sanitizer names the load)
    # the interpreter's bounds check names the unmasked load, its line and program, before it reads garbage
    assert "interpreter out-of-bounds read of 4 bytes in row_sum_kernel at" in text
    assert "missing_tail_mask.py:26, program (" in text and "lane" in text


def test_fp16_accumulation_fails_the_baseline_rule_and_the_fix_passes():
    bug = _case(_spec("zoo_kernels.fp16_accumulation"), "fp16_accumulation[M=64,N=65536,fp16,randn,seed=0]")
    assert bug.status is Status.FAILED
    assert bug.comparisons[0].mismatches == 0  # the table alone would have passed it
    assert "exceeds 2 x the same-precision baseline's" in bug.reasons[0]
    fixed = _case(_spec("zoo_kernels.fp16_accumulation", "fixed_spec"),
                  "fp16_accumulation_fixed[M=64,N=65536,fp16,randn,seed=0]")
    assert fixed.status is Status.PASSED


def test_exp_without_max_subtraction_fails_on_large_magnitude():
    spec = _spec("zoo_kernels.exp_no_max")
    assert _case(spec, "exp_no_max[M=128,N=1024,fp32,randn,seed=0]").status is Status.PASSED
    res = _case(spec, "exp_no_max[M=129,N=129,fp32,large,seed=0]")
    assert res.status is Status.FAILED and res.comparisons[0].nan_mismatches > 0
    assert "NaN in one of output and reference only" in kcheck.format_case(res)


def test_last_column_never_written():
    spec = _spec("zoo_kernels.last_column_unwritten")
    res = _case(spec, "last_column_unwritten[M=128,N=1024,fp32,randn,seed=0]")
    assert res.status is Status.FAILED and res.comparisons[0].unwritten == 128
    assert _where(res) == ["the last column (1023), in every row"]
    res = _case(spec, "last_column_unwritten[M=129,N=129,fp32,randn,seed=0]")
    assert _where(res) == ["tail columns 128..128, past the last full block of 16, 32, 64 or 128 (129 = 1x128 + 1), "
                           "in every row"]


@pytest.mark.parametrize(("module", "candidate"), [("noop_identity", "input 0 unchanged"), ("noop_zeros", "zeros")])
def test_noop_kernels_pass_a_casual_check_but_not_the_guard(module, candidate):
    spec = _spec(f"zoo_kernels.{module}")
    case_id = f"{module}[N=4096,fp32,randn,seed=0]"
    # the casual check: one power-of-two shape, randn, assert_close at the default tolerance
    from kcheck._device import detect
    from kcheck.cases import make_args, upcast

    case = kcheck.matrix(spec, cases=case_id)[0]
    args = make_args(spec, case, detect().device)
    out = spec.kernel(*args)
    atol = spec.atol if isinstance(spec.atol, float) else None
    torch.testing.assert_close(out, spec.reference(*upcast(args)).to(out.dtype), atol=atol,
                               rtol=None if atol is None else 1.3e-6)
    res = _case(spec, case_id)
    assert res.status is Status.FAILED and res.noop == f"output 0 is exactly {candidate}"


def test_bf16_failures_in_the_interpreter_are_untrusted_not_failed():
    from kcheck.backends._triton import interpreter_bf16_problem

    problem = interpreter_bf16_problem()
    if problem is None:
        pytest.skip("this Triton's interpreter computes bf16 correctly")
    res = _case(_spec("vector_add"), "vector_add[N=129,bf16,randn,BLOCK=1024,seed=0]")
    assert res.status is Status.UNTRUSTED and "computes bf16 wrongly" in res.untrusted
    spec = kcheck.check(_spec("vector_add"), cases="vector_add[N=129,bf16,randn,BLOCK=1024,seed=0]").specs[0]
    # not blamed on the kernel, and not a pass either: nothing this machine can judge ran
    assert spec.verdict is Verdict.NOT_RUN and spec.machine_only
