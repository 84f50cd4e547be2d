"""kcheck.Options: one declaration per setting, and every surface (check(), debug(), the command line, the pytest
plugin, pyproject.toml) built from it. These tests fail when a surface drifts from the declarations."""

from __future__ import annotations

import inspect
import math
import textwrap
from typing import Any

import pytest
import torch

import kcheck
from kcheck import _options
from kcheck._options import NOT_OPTIONS, SURFACES, Options, Setting
from kcheck.cli import ExitCode, _parser, main
from kcheck.cli import _options as cli_options

pytest_plugins = ["pytester"]

#: Reading a [tool.kcheck] section needs a TOML parser: tomllib (3.11+) or tomli on 3.10.
needs_toml = pytest.mark.skipif(_options._TOML_LOADS is None, reason="no TOML parser (Python 3.10 without tomli)")

NEG = """
import torch, kcheck
spec = kcheck.Spec(name="neg", kernel=torch.neg, reference=torch.neg, inputs=[kcheck.Tensor("N")],
                   dims={"N": kcheck.Dim(nominal=64, real=())})
"""

#: A value other than the default for each setting: (how a flag spells it, what Options holds).
EXPLICIT = {"dtypes": ("fp16,fp32", ("fp16", "fp32")), "patterns": ("zeros", ("zeros",)), "cases": (["a[", "b"],
                                                                                                   ("a[", "b")),
            "workers": ("2", 2)}

#: Wrong values of every setting (each one must be a SpecError naming the setting).
BAD: dict[str, list[Any]] = {
    "tier": [None, "fast", 1], "dtypes": [5, [], "fp33", [None]], "patterns": [["randm"], [], 3],
    "seeds": [0, -1, "2", True, 1.5, 10**6], "large": ["no", 1, None], "cases": [[], 5, [""], b"x"],
    "isolate": [1, "yes", None], "timeout": [0, -1, math.nan, "60", True, None],
    "interpreter_checks": [None, 0], "order": ["sideways", None], "resources": [None, "true"],
    "cross_interpret": [None, "no", 1],
    "workers": [0, -1, "x", True, 1.5, "2.5", None],
}


def _explicit(s: Setting, surface: str) -> tuple[list[str], Any]:
    """argv giving ``s`` a value other than its default on ``surface``, and that value."""
    default = s.default_on(surface)
    if s.kind == "bool":
        on, off = s.flags()
        return [off if default else on], not default
    if s.kind == "choice":
        value = next(c for c in s.choices if c != default)
        return [s.flags()[0], value], value
    if s.kind == "int":
        return [s.flags()[0], "2"], 2
    if s.kind == "float":
        return [s.flags()[0], "5.5"], 5.5
    text, value = EXPLICIT[s.name]
    if s.kind == "ids":
        return [arg for t in text for arg in (s.flags()[0], t)], value
    return [s.flags()[0], text], value


def _neg_file(tmp_path):
    path = tmp_path / "neg.py"
    path.write_text(textwrap.dedent(NEG))
    return path


# --- the declarations -----------------------------------------------------------------------------------------------

def test_every_setting_is_on_each_surface_or_says_why_not():
    for s in Options.settings():
        assert s.help and s.kind in ("choice", "bool", "int", "float", "names", "ids", "workers"), s.name
        assert set(s.absent) <= set(SURFACES) and all(why.strip() for why in s.absent.values()), s.name
        assert "check" not in s.absent, f"{s.name}: every setting is an argument of kcheck.check()"
        for surface, (value, why) in s.surface_defaults.items():
            assert surface in SURFACES and s.on(surface) and why.strip(), (s.name, surface)
            assert s.validate(s.name, value) == value and value != s.default, (s.name, surface)
        assert s.validate(s.name, s.default) == s.default, s.name
        assert s.name in BAD, f"{s.name}: add wrong values of this setting to BAD"


def test_the_api_defaults_are_the_declared_ones():
    assert Options() == Options.defaults("check") == Options.resolve(None, {})
    assert Options().as_dict() == {s.name: s.default for s in Options.settings()}
    assert hash(Options(dtypes=["fp32"])) == hash(Options(dtypes=("fp32",)))  # normalized, frozen


def test_check_takes_every_setting_and_no_copy_of_one():
    """check()'s own parameters are the non-settings (callbacks); the settings come through Options/overrides."""
    params = inspect.signature(kcheck.check).parameters
    named = {n for n, p in params.items() if p.kind is not inspect.Parameter.VAR_KEYWORD}
    assert named == set(NOT_OPTIONS)
    assert any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def test_debug_takes_the_settings_it_shares():
    params = inspect.signature(kcheck.debug).parameters
    copies = {n for n in params if n in {s.name for s in Options.settings()}}
    # `large` stays debug()'s own: None means "where the device can run them", which no Options value says
    assert copies == {"large"}
    assert "options" in params and any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def test_check_honours_options_and_explicit_arguments_win(tmp_path):
    spec = kcheck.Spec(name="neg", kernel=torch.neg, reference=torch.neg, inputs=[kcheck.Tensor("N")],
                       dims={"N": kcheck.Dim(nominal=64, real=())})
    case = "neg[N=17,fp32,randn,seed=0]"
    report = kcheck.check(spec, Options(cases=["matches-no-case"], large=False), cases=case)
    assert [r.case.id for r in report.specs[0].cases] == [case]
    with pytest.raises(kcheck.SpecError, match="no case id matches"):
        kcheck.check(spec, Options(cases=["matches-no-case"]))


@pytest.mark.parametrize("name,value", [(n, v) for n, values in BAD.items() for v in values])
def test_bad_values_are_spec_errors(name, value):
    with pytest.raises(kcheck.SpecError) as err:
        Options(**{name: value})
    assert err.value.argument == name
    spec = kcheck.Spec(name="neg", kernel=torch.neg, reference=torch.neg, inputs=[kcheck.Tensor("N")])
    with pytest.raises(kcheck.SpecError):
        kcheck.check(spec, **{name: value})


def test_errors_suggest_the_close_matches():
    spec = kcheck.Spec(name="neg", kernel=torch.neg, reference=torch.neg, inputs=[kcheck.Tensor("N")])
    with pytest.raises(kcheck.SpecError, match="did you mean 'tier'"):
        kcheck.check(spec, tiers="quick")
    with pytest.raises(kcheck.SpecError, match="did you mean 'progress'"):
        kcheck.check(spec, progres=print)
    with pytest.raises(kcheck.SpecError, match="did you mean 'quick'"):
        Options(tier="quik")
    with pytest.raises(kcheck.SpecError, match=r"dtypes='fp33'.*did you mean 'fp32'"):
        Options(dtypes="fp32,fp33")
    with pytest.raises(kcheck.SpecError, match="options=5"):
        kcheck.check(spec, 5)
    assert Options(dtypes=[torch.float16, "bfloat16"]).dtypes == ("fp16", "bf16")  # aliases kept working


def test_debug_refuses_a_setting_it_does_not_take():
    spec = kcheck.Spec(name="neg", kernel=torch.neg, reference=torch.neg, inputs=[kcheck.Tensor("N")])
    with pytest.raises(kcheck.SpecError, match=r"cases=.*the debugger reads the whole matrix"):
        kcheck.debug(spec, cases="neg[N=1")
    with pytest.raises(kcheck.SpecError, match="order='up'"):
        kcheck.debug(spec, order="up")


# --- the command line -----------------------------------------------------------------------------------------------

def _subparser(command: str):
    parser = _parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return parser, sub.choices[command]


@pytest.mark.parametrize("command", ["check", "debug", "sanitize"])
def test_cli_flags_are_the_declared_settings(command, tmp_path):
    surface = f"cli {command}"
    parser, sub = _subparser(command)
    flags = {f: a for a in sub._actions for f in a.option_strings}
    path = str(_neg_file(tmp_path))
    assert cli_options(parser.parse_args([command, path])) == Options.defaults(surface)
    for s in Options.settings():
        if not s.on(surface):
            assert all(a.dest != s.name for a in sub._actions), f"{s.name} has a flag on {surface}"
            continue
        for flag in s.flags():
            assert flag in flags and flags[flag].dest == s.name, (surface, flag)
        argv, value = _explicit(s, surface)
        got = cli_options(parser.parse_args([command, path, *argv]))
        assert getattr(got, s.name) == value, (surface, argv)
        assert got.replace(**{s.name: s.default_on(surface)}) == Options.defaults(surface)
        assert s.help.split(",")[0] in flags[s.flags()[0]].help


@pytest.mark.parametrize("argv,expected", [
    (["--tier", "quick"], {"tier": "quick"}),
    (["--case", "a", "--case", "b"], {"cases": ("a", "b")}),
    (["--dtypes", "fp32,bf16"], {"dtypes": ("fp32", "bf16")}),
    (["--seeds", "3"], {"seeds": 3}),
    (["--no-large"], {"large": False}),
    (["--no-isolate"], {"isolate": False}),
    (["--timeout", "inf"], {"timeout": math.inf}),
    (["--no-interpreter-checks"], {"interpreter_checks": False}),
    (["--order", "random"], {"order": "random"}),
    (["--no-resources"], {"resources": False}),
])
def test_the_check_command_keeps_its_flags(argv, expected, tmp_path):
    parser, _ = _subparser("check")
    got = cli_options(parser.parse_args(["check", str(_neg_file(tmp_path)), *argv]))
    assert got == Options.defaults("cli check").replace(**expected)
    assert Options.defaults("cli check").isolate and Options.defaults("cli check").resources


def test_cli_bad_values_exit_with_usage(tmp_path, capsys):
    path = str(_neg_file(tmp_path))
    assert main(["check", path, "-q", "--timeout", "nan"]) == ExitCode.USAGE
    assert "timeout=nan" in capsys.readouterr().err
    assert main(["check", path, "-q", "--patterns", "randm"]) == ExitCode.USAGE
    assert "did you mean 'randn'" in capsys.readouterr().err


# --- pyproject.toml -------------------------------------------------------------------------------------------------

SECTION = """
[project]
name = "mykernels"

[tool.kcheck]
tier = "quick"
dtypes = ["fp32"]
interpreter-checks = false
timeout = inf
order = "reversed"
"""


@needs_toml
def test_the_nearest_pyproject_is_read(tmp_path):
    (tmp_path / "pyproject.toml").write_text(SECTION)
    deep = tmp_path / "src" / "pkg"
    deep.mkdir(parents=True)
    got = Options.from_pyproject(deep)
    assert got == Options(tier="quick", dtypes=["fp32"], interpreter_checks=False, timeout=math.inf, order="reversed")
    assert Options.from_pyproject(deep / "kernels.py", base=Options(seeds=2)).seeds == 2  # a file: its folder
    (deep / "pyproject.toml").write_text("[project]\nname = 'inner'\n")  # the nearest one has no section
    assert Options.from_pyproject(deep) == Options()


@needs_toml
def test_unknown_keys_name_the_key_and_the_close_matches(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.kcheck]\ntiers = 'quick'\n")
    with pytest.raises(kcheck.SpecError, match=r"\[tool.kcheck\] tiers='quick': not a kcheck option; did you mean "
                                               r"'tier'"):
        Options.from_pyproject(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.kcheck]\ninterpreter_check = false\n")
    with pytest.raises(kcheck.SpecError, match="did you mean 'interpreter_checks'\\?"):
        Options.from_pyproject(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.kcheck]\ninterpreter-check = false\n")
    with pytest.raises(kcheck.SpecError, match="did you mean 'interpreter-checks'\\?"):
        Options.from_pyproject(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.kcheck]\ncases = ['a']\n")
    with pytest.raises(kcheck.SpecError, match=r"not read from pyproject\.toml: a case filter"):
        Options.from_pyproject(tmp_path)


@needs_toml
def test_bad_pyproject_values_and_files_are_spec_errors(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.kcheck]\ntimeout = '60'\n")
    with pytest.raises(kcheck.SpecError, match=r"pyproject.toml: \[tool.kcheck\] timeout='60': give a positive"):
        Options.from_pyproject(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.kcheck]\ntier = \n")
    with pytest.raises(kcheck.SpecError, match="not valid TOML"):
        Options.from_pyproject(tmp_path)


def test_without_a_toml_parser_only_a_section_is_an_error(tmp_path, monkeypatch):
    monkeypatch.setattr(_options, "_TOML_LOADS", None)  # Python 3.10 without tomli
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    assert Options.from_pyproject(tmp_path) == Options()
    (tmp_path / "pyproject.toml").write_text(SECTION)
    with pytest.raises(kcheck.EnvironmentProblem, match="pip install tomli"):
        Options.from_pyproject(tmp_path)


@needs_toml
def test_precedence_defaults_pyproject_flags_api(tmp_path, capsys):
    (tmp_path / "pyproject.toml").write_text(SECTION + "seeds = 3\nisolate = false\n")
    path = str(_neg_file(tmp_path))
    parser, _ = _subparser("check")
    from_cli = cli_options(parser.parse_args(["check", path, "--order", "random"]))
    assert (from_cli.tier, from_cli.seeds, from_cli.order) == ("quick", 3, "random")  # flag > pyproject
    assert not from_cli.isolate and from_cli.resources  # pyproject > the command's default; the default otherwise
    assert Options.resolve(from_cli, {"seeds": 2, "order": "sequential"}) == from_cli.replace(seeds=2,
                                                                                           order="sequential")
    (tmp_path / "pyproject.toml").write_text("[tool.kcheck]\ndtypes = ['fp33']\n")
    assert main(["check", path, "-q"]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert "pyproject.toml: [tool.kcheck] dtypes='fp33'" in err and str(tmp_path) in err


# --- the pytest plugin ----------------------------------------------------------------------------------------------

def test_pytest_options_are_the_declared_settings(pytester):
    from kcheck.pytest_plugin import options

    config = pytester.parseconfig()
    assert options(config) == Options.defaults("pytest")
    for s in Options.settings():
        if not s.on("pytest"):
            with pytest.raises(ValueError):
                config.getoption(f"kcheck_{s.name}")
            continue
        argv, value = _explicit(s, "pytest")
        argv = [a.replace("--", "--kcheck-", 1) if a.startswith("--") else a for a in argv]
        assert getattr(options(pytester.parseconfig(*argv)), s.name) == value, argv


@needs_toml
def test_pytest_reads_pyproject_under_its_flags(pytester):
    from kcheck.pytest_plugin import options

    pytester.makefile(".toml", pyproject=SECTION)
    config = pytester.parseconfig("--kcheck-order", "random")
    assert options(config) == Options(tier="quick", dtypes=["fp32"], interpreter_checks=False, timeout=math.inf,
                                      order="random")


def test_pytest_plugin_runs_cases_with_the_options(pytester, monkeypatch):
    import kcheck.pytest_plugin

    seen = []
    run_case = kcheck.pytest_plugin.run_case

    def spy(spec, case, device, options=None):
        seen.append((case.precision, options.interpreter_checks, options.order))
        return run_case(spec, case, device, options)

    monkeypatch.setattr(kcheck.pytest_plugin, "run_case", spy)
    pytester.makepyfile(test_neg=NEG)
    result = pytester.runpytest("--kcheck-tier", "quick", "--kcheck-dtypes", "fp16", "--kcheck-order", "reversed",
                                "--kcheck-no-interpreter-checks", "-p", "no:cacheprovider")
    outcomes = result.parseoutcomes()
    assert outcomes["passed"] + outcomes.get("skipped", 0) == len(seen) > 0  # every case ran through run_case
    assert {s[0] for s in seen} == {"fp16"} and {s[1:] for s in seen} == {(False, "reversed")}
    result = pytester.runpytest("--kcheck-tier", "fast", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
