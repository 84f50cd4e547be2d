"""The pytest plugin turns a Spec's cases into tests with kcheck's failure message."""

pytest_plugins = ["pytester"]

SPEC = """
import torch, kcheck
def neg(x):
    y = -x
    if x.shape[0] == 129:
        y[-1] = 0
    return y
spec = kcheck.Spec(name="neg", kernel=neg, reference=torch.neg, inputs=[kcheck.Tensor("N")],
                   dims={"N": kcheck.Dim(nominal=64, real=())})
"""


def test_cases_become_tests_and_failures_carry_the_message(pytester):
    pytester.makepyfile(test_neg=SPEC)
    result = pytester.runpytest("--kcheck-tier", "quick", "-p", "no:cacheprovider", "-rs")
    outcomes = result.parseoutcomes()
    assert outcomes["failed"] >= 1 and outcomes["passed"] >= 5
    result.stdout.fnmatch_lines([
        "*neg[[]N=129,fp32,randn,seed=0[]] FAILED*",
        "*Where: tail: elements 128..128, past the last full block of 16, 32, 64 or 128 (129 = 1x128 + 1)*",
        "*Rerun: kcheck check *test_neg.py --case 'neg[[]N=129,fp32,randn,seed=0[]]'*",
    ])


def test_cases_are_selectable_by_id(pytester):
    pytester.makepyfile(test_neg=SPEC)
    result = pytester.runpytest("--kcheck-tier", "quick", "test_neg.py::spec::neg[N=1,fp32,randn,seed=0]",
                                "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


CRASHY = """
import os, torch, kcheck
def neg(x):
    if x.shape[0] == 17:
        os.abort()
    return -x
spec = kcheck.Spec(name="neg", kernel=neg, reference=torch.neg, inputs=[kcheck.Tensor("N")],
                   dims={"N": kcheck.Dim(nominal=64, real=())})
"""


def test_isolated_cases_survive_a_crash(pytester):
    pytester.makepyfile(test_crashy=CRASHY)
    result = pytester.runpytest("--kcheck-isolate", "-p", "no:cacheprovider",
                                "test_crashy.py::spec::neg[N=17,fp32,randn,seed=0]",
                                "test_crashy.py::spec::neg[N=33,fp32,randn,seed=0]")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*crashed: killed by SIGABRT (signal 6)*"])
