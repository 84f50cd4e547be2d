"""Modes (``Spec(params=...)``): validation, their place in the matrix and the case id, and every path that calls
the kernel or the reference passing them (the forward, the gradients, the same-precision baseline, shape
inference, the repro script, the debugger's probes, the evaluation problem)."""

from __future__ import annotations

import itertools
import json
import sys
import textwrap

import pytest
import torch

import kcheck
from kcheck import Status
from kcheck._device import DeviceInfo
from kcheck.cases import case_from_id, kernel_kwargs, reference_kwargs, tensor_shapes

CPU = DeviceInfo("cpu", "CPU", 24 * 2**30, 20 * 2**30, None, 132, True)
H200 = DeviceInfo("cuda", "NVIDIA H200", 141 * 2**30, 140 * 2**30, (9, 0), 132, False)
DIMS = {"M": kcheck.Dim(nominal=8, real=()), "N": kcheck.Dim(nominal=16, real=())}


def _scale(x, *, scale=1.0, shift=0):
    return x * scale + shift


def _spec(kernel=_scale, reference=_scale, **kw):
    kw.setdefault("params", {"scale": [1.0, 2.5], "shift": [0, 3]})
    kw.setdefault("dims", DIMS)
    kw.setdefault("dtypes", ["fp32", "bf16"])
    return kcheck.Spec(name="affine", kernel=kernel, reference=reference, inputs=[kcheck.Tensor("M", "N")], **kw)


# --- validation ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("params, words", [
    ([("scale", [1.0])], "give a dict"),
    ({"scale": 2.0}, "non-empty list"),
    ({"scale": []}, "non-empty list"),
    ({"scale": "fast"}, "non-empty list"),
    ({"scale": [[1.0]]}, "hashable"),
    ({"scale": [1, "1"]}, "read the same"),
    ({"2x": [1.0]}, "identifier"),
    ({"N": [1.0]}, "dimension or its seed"),
    ({"seed": [1]}, "dimension or its seed"),
    ({"x": [1.0]}, "an input is named so too"),
    ({"BLOCK": [1]}, "configs or in params"),
    ({"alpha": [1.0]}, "the kernel cannot take alpha="),
])
def test_a_bad_params_argument_is_a_spec_error_with_the_fix(params, words):
    with pytest.raises(kcheck.SpecError, match=words) as err:
        kcheck.Spec(name="affine", kernel=_scale, reference=_scale, params=params, configs=[{"BLOCK": 4}],
                    inputs=[kcheck.Tensor("M", "N", name="x")], dims=DIMS)
    assert err.value.argument.startswith("params")


def test_the_reference_and_an_autograd_function_are_checked_for_the_keyword_too():
    with pytest.raises(kcheck.SpecError, match="the reference cannot take scale="):
        _spec(reference=lambda x: x, params={"scale": [1.0]})

    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale=1.0):
            return x * scale

        @staticmethod
        def backward(ctx, g):
            return g, None

    _spec(kernel=Scale.apply, params={"scale": [1.0]})  # forward takes it: accepted
    with pytest.raises(kcheck.SpecError, match="the kernel cannot take shift="):
        _spec(kernel=Scale.apply, params={"shift": [0]})
    _spec(kernel=lambda x, **kw: _scale(x, **kw))  # **kwargs takes anything
    _spec(kernel=torch.mul, reference=torch.mul, params={"other": [2.0]})  # a builtin: Python cannot tell, accepted


# --- the matrix and the case id -----------------------------------------------------------------------------------


def test_every_value_runs_at_the_nominal_shape_with_the_others_nominal_and_the_ids_name_them():
    cases = kcheck.matrix(_spec(), device=CPU)
    nominal = {"M": 8, "N": 16}
    assert all(len(c.params) == 2 for c in cases)
    for name, values in {"scale": [1.0, 2.5], "shift": [0, 3]}.items():
        for v in values:
            at = [c for c in cases if c.params_dict[name] == v and c.sizes == nominal and c.precision == "fp32"]
            assert at, (name, v)
    one_at_a_time = [c for c in cases if c.axis == "param"]
    assert {tuple(c.params) for c in one_at_a_time} == {(("scale", 2.5), ("shift", 0)), (("scale", 1.0), ("shift", 3))}
    assert all(c.params == (("scale", 1.0), ("shift", 0)) for c in cases if c.axis in ("size", "dtype", "seed"))
    assert "affine[M=8,N=16,fp32,randn,scale=2.5,shift=0,seed=0]" in [c.id for c in cases]


def test_the_modes_are_factors_of_the_pairwise_design():
    cases = [c for c in kcheck.matrix(_spec(), device=CPU) if c.axis == "pairwise"]
    met = {(c.precision, c.params_dict["scale"]) for c in cases} | {(c.precision, c.params_dict["shift"])
                                                                   for c in cases}
    assert met >= {(p, v) for p in ("fp32", "bf16") for v in (1.0, 2.5, 0, 3)}
    pairs = {(c.params_dict["scale"], c.params_dict["shift"]) for c in cases}
    assert pairs == set(itertools.product([1.0, 2.5], [0, 3]))


def test_the_full_tier_crosses_the_modes():
    cases = [c for c in kcheck.matrix(_spec(), device=CPU, tier="full") if c.axis == "param"]
    assert {tuple(c.params) for c in cases} == {(("scale", s), ("shift", t)) for s in (1.0, 2.5) for t in (0, 3)} - {
        (("scale", 1.0), ("shift", 0))}


def test_case_from_id_rebuilds_every_case_of_the_matrix_and_refuses_an_undeclared_value():
    spec = _spec(params={"scale": [1.0, 2.5], "out_dtype": [torch.float32, torch.bfloat16], "tile": [(1, 2), None]},
                 kernel=lambda x, scale, out_dtype, tile: x, reference=lambda x, scale, out_dtype, tile: x)
    for case in kcheck.matrix(spec, device=H200):
        again = case_from_id(spec, case.id)
        assert again.params == case.params and again.id == case.id
    assert "out_dtype=bfloat16" in " ".join(c.id for c in kcheck.matrix(spec, device=CPU))
    assert "tile=(1;2)" in kcheck.matrix(spec, device=CPU)[0].id
    with pytest.raises(kcheck.SpecError, match="not one of the values"):
        case_from_id(spec, "affine[M=8,N=16,fp32,randn,scale=9.0,seed=0]")
    bare = case_from_id(spec, "affine[M=8,N=16,fp32,randn,seed=0]")  # modes left out: the nominal ones
    assert bare.params_dict == {"scale": 1.0, "out_dtype": torch.float32, "tile": (1, 2)}


def test_a_case_built_without_modes_gets_the_nominal_ones():
    spec = _spec(configs=[{"BLOCK": 4}], kernel=lambda x, scale, shift, BLOCK: x)
    bare = kcheck.Case("affine", (("M", 8), ("N", 16)), "fp32", config=(("BLOCK", 4),))
    assert kernel_kwargs(spec, bare) == {"scale": 1.0, "shift": 0, "BLOCK": 4}
    assert reference_kwargs(spec, bare) == {"scale": 1.0, "shift": 0}


# --- every path passes them ---------------------------------------------------------------------------------------


def test_a_kernel_that_ignores_a_mode_fails_exactly_on_the_cases_that_use_it():
    seen = []

    def kernel(x, scale=1.0, shift=0):
        seen.append((scale, shift))
        return x * scale  # the shift is dropped

    report = kcheck.check(_spec(kernel=kernel), tier="quick")
    failed = {c.id for c in report.cases if c.status is Status.FAILED}
    assert failed and all(c.case.params_dict["shift"] == 3 for c in report.cases if c.id in failed)
    assert all(c.status is not Status.FAILED for c in report.cases if c.case.params_dict["shift"] == 0)
    assert (2.5, 0) in seen and (1.0, 3) in seen
    assert kcheck.check(_spec(), tier="quick").passed
    text = kcheck.format_case(next(c for c in report.cases if c.id in failed))
    assert "params={scale: 1.0, shift: 3}" in text and "shift=3" in text


def test_the_baseline_gets_the_modes():
    got = []

    def baseline(x, scale=1.0, shift=0):
        got.append(scale)
        return _scale(x, scale=scale, shift=shift)

    report = kcheck.check(_spec(baseline=baseline), cases="scale=2.5", dtypes=["bf16"])
    assert report.cases and report.passed and set(got) == {2.5}


def test_the_gradient_path_passes_the_modes():
    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale=1.0, shift=0):
            ctx.scale = scale
            return x * scale + shift

        @staticmethod
        def backward(ctx, g):
            return g, None, None  # wrong: d/dx is scale

    spec = _spec(kernel=Scale.apply, grad=True)
    report = kcheck.check(spec, tier="quick", dtypes=["fp32"])
    bad = [c for c in report.cases if c.status is Status.FAILED]
    assert bad and all(c.case.params_dict["scale"] == 2.5 for c in bad)
    assert all([g.output for g in c.comparisons if not g.passed] == ["grad of input 0"] for c in bad)


def test_modes_reach_an_autograd_function_that_takes_no_keywords():
    """torch before 2.13: ``Function.apply`` takes no keyword arguments; the modes go by position, by the names
    of ``forward``'s parameters."""
    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale=1.0, shift=0):
            return x * scale + shift

        @staticmethod
        def backward(ctx, g):
            return g, None, None  # wrong: d/dx is scale

        @classmethod
        def apply(cls, *args, **kwargs):  # as torch 2.11's
            if kwargs:
                raise TypeError("apply() takes no keyword arguments")
            return super().apply(*args)

    report = kcheck.check(_spec(kernel=Scale.apply, grad=True), tier="quick", dtypes=["fp32"])
    assert not [c for c in report.cases if c.status is Status.ERROR]
    bad = [c for c in report.cases if c.status is Status.FAILED]
    assert bad and all(c.case.params_dict["scale"] == 2.5 for c in bad)


def test_the_json_report_carries_the_modes():
    report = kcheck.check(_spec(), cases="scale=2.5", dtypes=["fp32"])
    data = json.loads(report.to_json())
    case = data["specs"][0]["cases"][0]
    assert "scale=2.5" in case["id"]
    text = json.dumps(case)
    assert '"params": {"scale": 2.5, "shift": 0}' in text


def test_output_shapes_are_learned_per_set_of_modes():
    def reduce(x, reduction="none"):
        return x.sum() if reduction == "sum" else x * 1

    spec = _spec(kernel=reduce, reference=reduce, params={"reduction": ["none", "sum"]})
    assert tensor_shapes(spec, {"M": 8, "N": 16}) == [(8, 16), (8, 16)]
    assert tensor_shapes(spec, {"M": 8, "N": 16}, {"reduction": "sum"}) == [(8, 16), ()]


def test_the_debuggers_probes_keep_the_modes():
    from kcheck._device import detect
    from kcheck.diagnose._probe import ones_at, scaled
    from kcheck.run import run_case

    spec = _spec()
    case = next(c for c in kcheck.matrix(spec) if c.params_dict["scale"] == 2.5)
    for variant in (scaled(spec, 2.0), ones_at(spec, 0)):
        res = run_case(variant, case, detect())
        assert res.status is Status.PASSED, kcheck.format_case(res)


def test_the_repro_script_reruns_the_case_with_its_modes(tmp_path, monkeypatch):
    from kcheck._discover import load_module
    from kcheck.diagnose._repro import run_repro, write_repro

    monkeypatch.setattr(sys, "path", list(sys.path))
    file = tmp_path / "modes_spec.py"
    file.write_text(textwrap.dedent("""
        import kcheck

        def kernel(x, scale=1.0):
            return x * 2.5  # right only when scale is 2.5

        def reference(x, scale=1.0):
            return x * scale

        spec = kcheck.Spec(name="modes", kernel=kernel, reference=reference, inputs=[kcheck.Tensor("N")],
                           dims={"N": kcheck.Dim(nominal=8, real=())}, dtypes=["fp32"],
                           params={"scale": [1.0, 2.5]})
    """))
    spec = load_module(file).spec
    report = kcheck.check(spec, tier="quick", large=False)
    failing = next(c for c in report.cases if c.status is Status.FAILED)
    passing = next(c for c in report.cases if c.status is Status.PASSED and c.case.params_dict["scale"] == 2.5)
    script = write_repro(spec, str(file), failing, tmp_path / "out", "cpu")
    assert "params = {'scale': 1.0}" in script.read_text()
    assert run_repro(script)[0] == 1
    script = write_repro(spec, str(file), passing, tmp_path / "ok", "cpu")
    assert run_repro(script)[0] == 0


def test_the_evaluation_problem_passes_the_modes_to_the_reference_and_the_candidate():
    from types import ModuleType

    from kcheck.evaluation._problem import candidate_from_module, problem_from_spec

    spec = _spec(params={"scale": [2.5, 1.0], "shift": [3]})
    problem = problem_from_spec(spec, "cpu", seeds=1, trials=1)
    x = problem.make_inputs(0)
    assert torch.equal(problem.reference(*x), x[0] * 2.5 + 3)
    assert torch.equal(problem.reference64(*x), x[0].double() * 2.5 + 3)
    module = ModuleType("candidate")
    module.kernel = _scale  # type: ignore[attr-defined]
    assert torch.equal(candidate_from_module(module, problem, "cpu").call(*x), x[0] * 2.5 + 3)


def test_the_debugger_varies_the_failing_case_mode():
    from kcheck.diagnose._sweep import base_case

    def kernel(x, scale=1.0, shift=0):
        return x * scale  # the shift is dropped

    spec = _spec(kernel=kernel)
    report = kcheck.check(spec, tier="quick", dtypes=["fp32"])
    base = base_case(spec, report.specs[0])
    assert base is not None and base.params_dict["shift"] == 3 and base.sizes == {"M": 8, "N": 16}
