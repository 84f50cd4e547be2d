"""``kcheck.Options``: every setting of a check, declared once.

Each setting is one field of :class:`Options` with its default, its help text, its validation and the surfaces that
show it: the keyword arguments of ``kcheck.check()`` and ``kcheck.debug()``, the flags of ``kcheck check``,
``kcheck debug`` and ``kcheck sanitize``, the pytest plugin's ``--kcheck-<name>`` options and the keys of a
``[tool.kcheck]`` section in pyproject.toml. The command line and the pytest plugin build their flags from these
declarations, so a setting added here appears everywhere at once, with the same name, type, default and help, in
the spirit of Hypothesis's ``settings`` (https://hypothesis.readthedocs.io/en/latest/settings.html) and pytest's
option hooks (https://docs.pytest.org/en/stable/reference/reference.html#pytest.hookspec.pytest_addoption).

A setting that does not belong on a surface says why (``Setting.absent``); a surface whose default differs says why
(``Setting.surface_defaults``). Precedence, lowest first: the declared default < pyproject.toml < the command line
or pytest flags < the arguments of an explicit API call.

    [tool.kcheck]                 # pyproject.toml: read by `kcheck check`, `kcheck debug` and the pytest plugin
    tier = "quick"
    dtypes = ["fp32", "bf16"]
    interpreter-checks = true     # dashes or underscores
    timeout = inf                 # TOML's infinity: no time limit
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from ._dtypes import PRECISIONS, precision
from ._errors import EnvironmentProblem, SpecError
from ._spec import MAX_SEEDS, PATTERNS
from .cases import TIERS
from .interpret import ORDERS

if sys.version_info >= (3, 11):
    import tomllib

    _TOML_LOADS: Callable[[str], dict[str, Any]] | None = tomllib.loads
else:  # Python 3.10: tomli is the same parser, when installed
    try:
        import tomli  # type: ignore[import-not-found,unused-ignore]

        _TOML_LOADS = tomli.loads
    except ImportError:
        _TOML_LOADS = None

#: Where a setting can be given: ``kcheck.check()`` and ``kcheck.debug()`` keyword arguments, the flags of three
#: ``kcheck`` commands, the pytest plugin's ``--kcheck-<name>`` options, and keys of ``[tool.kcheck]``.
SURFACES = ("check", "debug", "cli check", "cli debug", "cli sanitize", "pytest", "pyproject")

#: Arguments of ``kcheck.check()`` that are not settings, and why: they are code, not values a flag or a
#: configuration file could hold.
NOT_OPTIONS = {
    "spec": "what is checked, not how",
    "options": "the Options object itself",
    "progress": "a callback (code), called before and after each case; the command line draws its progress bar "
                "with it",
    "live": "a callback (code), called with the report after each case; the command line writes --json with it",
}

_NO_TIER = "sanitize runs compute-sanitizer over each Spec's small edge cases (or the --case ids), not over a tier"
_NO_INTERPRETER = "compute-sanitizer runs kernels on a GPU, not in Triton's interpreter"
_PRECISION_NAMES = tuple(PRECISIONS)
_DEBUG_MATRIX = "the debugger reads the whole matrix: which sizes, precisions and data fail is its evidence"


@dataclass(frozen=True)
class Setting:
    """The declaration of one setting (one field of :class:`Options`)."""

    name: str
    default: Any
    help: str
    kind: str  # "choice" | "bool" | "int" | "float" | "names" (comma-separated on a command line) | "ids" (repeatable)
    # | "workers" (a count or "auto")
    validate: Callable[[str, Any], Any]  # (name, value) -> the value normalized; a SpecError when wrong
    choices: tuple[str, ...] = ()
    metavar: str | None = None
    flag: str | None = None  # the command-line flag when it is not --<name with dashes>
    short: str | None = None  # a one-letter command-line alias ("-n"), not given a prefix
    unset: str = "the Spec's own"  # what None means, in the help
    surface_unset: Mapping[str, str] = field(default_factory=dict)  # surface -> what None means there
    surface_defaults: Mapping[str, tuple[Any, str]] = field(default_factory=dict)  # surface -> (default, why)
    absent: Mapping[str, str] = field(default_factory=dict)  # surface -> why the setting is not there

    def on(self, surface: str) -> bool:
        return surface not in self.absent

    def default_on(self, surface: str) -> Any:
        return self.surface_defaults[surface][0] if surface in self.surface_defaults else self.default

    def flags(self, prefix: str = "--") -> tuple[str, ...]:
        """The flag(s) of this setting: a bool has a pair, ``--x`` and ``--no-x``."""
        base = (self.flag or "--" + self.name.replace("_", "-"))[2:]
        if self.kind == "bool":
            return (prefix + base, f"{prefix}no-{base}")
        return (self.short, prefix + base) if self.short and prefix == "--" else (prefix + base,)

    def arguments(self, surface: str, prefix: str = "--", dest_prefix: str = "") -> list[tuple[tuple[str, ...],
                                                                                               dict[str, Any]]]:
        """argparse ``add_argument`` calls (flags, keyword arguments) that give this setting on ``surface``; the
        value is None when the flag is not given, so the lower layers (pyproject.toml, the defaults) apply."""
        dest = dest_prefix + self.name
        shown = self.default_on(surface)
        if self.kind == "bool":
            on, off = self.flags(prefix)
            state = "on" if shown else "off"
            return [((on,), dict(action="store_const", const=True, dest=dest, default=None,
                                 help=f"{self.help} (default: {state})".replace("%", "%%"))),
                    ((off,), dict(action="store_const", const=False, dest=dest, default=None,
                                  help=f"turn {on} off"))]
        kw: dict[str, Any] = dict(dest=dest, default=None, metavar=self.metavar)
        if self.kind == "choice":
            kw.update(choices=self.choices, metavar=None)
        elif self.kind == "int":
            kw.update(type=int)
        elif self.kind == "float":
            kw.update(type=float)
        elif self.kind == "ids":
            kw.update(action="append")
        unset = self.surface_unset.get(surface, self.unset)
        text = f"{self.help} (default: {unset if shown is None else _show(shown)})"
        return [(self.flags(prefix), dict(kw, help=text.replace("%", "%%")))]


def _show(value: Any) -> str:
    if isinstance(value, tuple):
        return ",".join(value)
    if isinstance(value, float):
        return "inf" if math.isinf(value) else f"{value:g}"
    return str(value)


def _close(word: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(known), n=3, cutoff=0.6)
    return f"did you mean {' or '.join(repr(c) for c in close)}? " if close else ""


# --- validators: (name, value) -> normalized value, or a SpecError naming the argument, the value and the fix -------

def _choice(choices: Sequence[str]) -> Callable[[str, Any], Any]:
    def check(name: str, value: Any) -> Any:
        if not isinstance(value, str) or value not in choices:
            hint = _close(value, choices) if isinstance(value, str) else ""
            raise SpecError(name, value, f"{hint}use one of {', '.join(repr(c) for c in choices)}")
        return value
    return check


def _bool(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise SpecError(name, value, "give True or False")
    return value


def _names(what: str, known: Sequence[str], one: Callable[[str], str] | None = None) -> Callable[[str, Any], Any]:
    """None (the Spec's own) or a non-empty list of names; a string may hold several, comma-separated."""
    def check(name: str, value: Any) -> Any:
        if value is None:
            return None
        items = [v.strip() for v in value.split(",")] if isinstance(value, str) else value
        if isinstance(items, (bytes, Mapping)) or not isinstance(items, Sequence) or not items:
            raise SpecError(name, value, f"give a list of {what} such as {list(known[:2])}, or None for the Spec's own")
        out = []
        for item in items:
            if one is not None:
                out.append(one(item))
                continue
            if not isinstance(item, str) or item not in known:
                hint = _close(item, known) if isinstance(item, str) else ""
                raise SpecError(name, item, f"{hint}use names from {list(known)}")
            out.append(item)
        return tuple(out)
    return check


def _precision_name(item: Any) -> str:
    try:
        return precision(item, "dtypes").name  # names, aliases ("float16") and torch dtypes
    except SpecError as exc:
        hint = _close(item, _PRECISION_NAMES) if isinstance(item, str) else ""
        raise SpecError("dtypes", item, f"{hint}{exc.fix}") from None


def _seeds(name: str, value: Any) -> int | None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_SEEDS):
        raise SpecError(name, value, f"give an int >= 1 and <= {MAX_SEEDS} (how many random seeds the nominal case "
                        "uses), or None for the Spec's own")
    return value


def _ids(name: str, value: Any) -> tuple[str, ...] | None:
    if value is None:
        return None
    items = [value] if isinstance(value, str) else value
    if isinstance(items, (bytes, Mapping)) or not isinstance(items, Sequence) or not items \
            or not all(isinstance(i, str) and i for i in items):
        raise SpecError(name, value, "give a case id, a glob or a substring (or a list of them), or None for every "
                        "case")
    return tuple(items)


def _seconds(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value) or value <= 0:
        raise SpecError(name, value, "give a positive number of seconds (math.inf, or inf in TOML: no limit)")
    return float(value)


def _workers(name: str, value: Any) -> int | str:
    if value == "auto":
        return "auto"
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise SpecError(name, value, "give a number of worker processes >= 1, or 'auto' (the CPU count without a "
                        "GPU; several per GPU with GPUs)")
    return value


def _setting(default: Any, help: str, kind: str, validate: Callable[[str, Any], Any], **more: Any) -> Any:
    """A field of Options carrying its declaration (the name is filled in from the field)."""
    return field(default=default, metadata={"setting": dict(default=default, help=help, kind=kind,
                                                            validate=validate, **more)})


@dataclass(frozen=True)
class Options:
    """How kcheck checks a Spec: the case matrix (tier, dtypes, patterns, seeds, large, cases) and how cases run
    (isolate, workers, timeout, interpreter_checks, order, resources). Validated on construction: a wrong value is a
    :class:`kcheck.SpecError` naming the setting, the value and the fix.

        opts = kcheck.Options(tier="quick", dtypes=["fp32"])
        kcheck.check(spec, opts)                      # or kcheck.check(spec, tier="quick", dtypes=["fp32"])
        kcheck.check(spec, opts, order="reversed")    # explicit arguments win over the Options given
        kcheck.Options.from_pyproject()               # the [tool.kcheck] section of the nearest pyproject.toml
    """

    tier: str = _setting(
        "default", "how many cases: 'quick', 'default' or 'full'", "choice", _choice(TIERS), choices=TIERS,
        absent={"cli sanitize": _NO_TIER})
    dtypes: Sequence[str] | None = _setting(
        None, "precisions replacing the Specs' own, e.g. fp32,bf16", "names", _names("precisions", _PRECISION_NAMES,
                                                                                     _precision_name),
        metavar="LIST", absent={"cli sanitize": _NO_TIER})
    patterns: Sequence[str] | None = _setting(
        None, f"data patterns replacing the Specs' own, from {','.join(PATTERNS)}", "names",
        _names("data patterns", PATTERNS), metavar="LIST", absent={"cli sanitize": _NO_TIER})
    seeds: int | None = _setting(
        None, "number of random seeds of the nominal case", "int", _seeds, metavar="N",
        absent={"cli sanitize": _NO_TIER})
    large: bool = _setting(
        True, "include the past-2**31-element cases (int32 index overflow) where the device can run them", "bool",
        _bool, absent={"cli sanitize": "a past-2**31 case under compute-sanitizer would take hours; sanitize runs "
                                       "small edge cases"})
    cases: Sequence[str] | None = _setting(
        None, "only the cases whose id matches (an exact id, a glob or a substring; repeat the flag for several)",
        "ids", _ids, metavar="ID", flag="--case", unset="every case",
        surface_unset={"cli sanitize": "each Spec's small edge cases"},
        absent={"debug": _DEBUG_MATRIX, "cli debug": _DEBUG_MATRIX,
                "pytest": "pytest selects cases itself: by node id (file.py::spec::name[...]) or -k",
                "pyproject": "a case filter picks the cases of one run; kept in a project's settings it would "
                             "silently leave cases out of every run"})
    isolate: bool = _setting(
        False, "run cases in a worker process: a crash or a hang costs that case only (the Spec must be defined at "
               "module level)", "bool", _bool,
        surface_defaults={"cli check": (True, "kcheck runs a user's kernel as a tool there: a crash or a hang must "
                                              "cost one case, never the run")},
        absent={"debug": "the debugger always runs the matrix in a worker: a failing kernel may crash",
                "cli debug": "the debugger always runs the matrix in a worker: a failing kernel may crash",
                "cli sanitize": "each sanitized case runs in its own compute-sanitizer process"})
    timeout: float = _setting(
        60.0, "seconds a case as costly as the nominal one may take in a worker before it counts as hung (scaled "
              "for costlier cases and a loaded machine, one retry before a hang is reported; inf: no limit)",
        "float", _seconds, metavar="S",
        absent={"cli sanitize": "sanitize's --timeout is another setting: the limit of one compute-sanitizer "
                                "process (default 600 s)"})
    workers: int | str = _setting(
        1, "run the cases in N worker processes at once ('auto': one per CPU core without a GPU, several per GPU "
           "with GPUs, each pinned to one GPU); implies isolation", "workers", _workers, metavar="N|auto", short="-n",
        absent={"debug": "the debugger runs its matrix in one worker",
                "cli debug": "the debugger runs its matrix in one worker",
                "cli sanitize": "sanitize's --jobs sets how many compute-sanitizer processes run at once",
                "pytest": "pytest-xdist's -n spreads the cases over processes (the plugin pins each to a GPU)"})
    interpreter_checks: bool = _setting(
        True, "in Triton's interpreter, check every memory access against the launch's tensors and find races "
              "between programs (findings fail the case)", "bool", _bool, absent={"cli sanitize": _NO_INTERPRETER})
    order: str = _setting(
        "sequential", "order in which Triton's interpreter runs a launch's programs ('random' is seeded by the "
                      "case's seed), so a kernel that depends on program order fails as on a GPU", "choice",
        _choice(ORDERS), choices=ORDERS, absent={"cli sanitize": _NO_INTERPRETER})
    cross_interpret: bool = _setting(
        True, "on a GPU, also run each Triton Spec's small fp32 cases in Triton's interpreter, in a worker that sees "
              "no GPU, with its checks: a race between programs or an out-of-bounds access that the GPU's schedule "
              "and memory layout hide fails the case (with isolate or workers)", "bool", _bool,
        absent={"cli sanitize": "sanitize runs compute-sanitizer's tools on the GPU"})
    resources: bool = _setting(
        False, "compile each kernel for sm_90 and report registers, spills, shared memory and stack (no GPU needed)",
        "bool", _bool,
        surface_defaults={"cli check": (True, "the command line's report is for a person reading it: the kernels' "
                                              "resources belong there; an API call pays only for what it asks")},
        absent={"debug": "the debugger does not report registers or spills",
                "cli debug": "the debugger does not report registers or spills",
                "cli sanitize": "compute-sanitizer reports accesses, not registers",
                "pytest": "resources are a report per Spec; the plugin's tests are cases, with no place to show it"})

    def __post_init__(self) -> None:
        for s in self.settings():
            object.__setattr__(self, s.name, s.validate(s.name, getattr(self, s.name)))

    # --- the declarations ---------------------------------------------------------------------------------------

    @classmethod
    def settings(cls, surface: str | None = None) -> list[Setting]:
        """The declarations, in field order; with ``surface``, only those shown there."""
        if surface is not None and surface not in SURFACES:
            raise SpecError("surface", surface, f"use one of {list(SURFACES)}")
        out = [Setting(name=f.name, **f.metadata["setting"]) for f in fields(cls)]
        return [s for s in out if surface is None or s.on(surface)]

    @classmethod
    def setting(cls, name: str) -> Setting:
        for s in cls.settings():
            if s.name == name:
                return s
        raise _unknown(name, None, [s.name for s in cls.settings()])

    @classmethod
    def defaults(cls, surface: str = "check") -> Options:
        """The defaults of ``surface`` (the command line isolates cases and reports resources by default)."""
        return cls(**{s.name: s.default_on(surface) for s in cls.settings(surface)})

    # --- combining ------------------------------------------------------------------------------------------------

    def replace(self, **changes: Any) -> Options:
        """A copy with ``changes`` applied and validated; an unknown name is a SpecError with the close matches."""
        names = [s.name for s in self.settings()]
        for key, value in changes.items():
            if key not in names:
                raise _unknown(key, value, names)
        return dataclasses.replace(self, **changes)

    @classmethod
    def resolve(cls, options: Options | None, overrides: Mapping[str, Any], surface: str = "check") -> Options:
        """``options`` (or the surface's defaults) with the explicit ``overrides`` of an API call on top: what
        ``check(spec, options, **overrides)`` runs with. A setting that does not belong on ``surface`` is refused
        with the reason."""
        if options is None:
            options = cls.defaults(surface)
        elif not isinstance(options, Options):
            raise SpecError("options", options, "pass a kcheck.Options, or None for the defaults")
        names = [s.name for s in cls.settings()]
        for key, value in overrides.items():
            if key not in names:
                callbacks = [n for n in NOT_OPTIONS if n not in ("spec", "options")] if surface == "check" else []
                raise _unknown(key, value, names + callbacks)
            why = cls.setting(key).absent.get(surface)
            if why is not None:
                raise SpecError(key, value, f"not a setting of {_where(surface)}: {why}")
        return options.replace(**overrides)

    def as_dict(self) -> dict[str, Any]:
        return {s.name: getattr(self, s.name) for s in self.settings()}

    # --- pyproject.toml -----------------------------------------------------------------------------------------

    @classmethod
    def from_pyproject(cls, path: str | Path | None = None, *, base: Options | None = None) -> Options:
        """``base`` (default: the API defaults) with the ``[tool.kcheck]`` section of the nearest pyproject.toml
        applied: the one in ``path`` (a file or a folder; default: the current directory) or the closest folder
        above it. No pyproject.toml, or none with the section: ``base`` unchanged. An unknown key is a SpecError
        naming the key and the close matches."""
        base = cls() if base is None else base
        found = find_pyproject(path)
        if found is None:
            return base
        return base.replace(**read_pyproject(found))


def _where(surface: str) -> str:
    if surface in ("check", "debug"):
        return f"kcheck.{surface}()"
    if surface == "pytest":
        return "the pytest plugin"
    return "pyproject.toml's [tool.kcheck]" if surface == "pyproject" else f"`kcheck {surface[4:]}`"


def _unknown(key: str, value: Any, known: Sequence[str]) -> SpecError:
    return SpecError(key, value, f"not a kcheck option; {_close(key, known)}the options are {', '.join(known)}")


def find_pyproject(path: str | Path | None = None) -> Path | None:
    """The nearest pyproject.toml: in ``path`` (a file's folder, or the folder; default: the current directory) or
    the closest folder above it (a project's pyproject.toml bounds it, as for ruff and pytest)."""
    start = Path.cwd() if path is None else Path(path).resolve()
    while not start.is_dir() and start != start.parent:  # a file, or a path not created yet
        start = start.parent
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


_SECTION = re.compile(r"^\s*(\[\s*tool\s*\.\s*kcheck\s*[\].]|tool\s*\.\s*kcheck\s*[.=])", re.MULTILINE)


def read_pyproject(path: str | Path) -> dict[str, Any]:
    """The settings of ``path``'s ``[tool.kcheck]`` section, validated (keys with dashes or underscores); {} when
    the file has no such section."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError("pyproject.toml", str(path), f"cannot be read ({exc}); fix or remove it") from None
    if not _SECTION.search(text):
        return {}
    if _TOML_LOADS is None:
        raise EnvironmentProblem(f"{path} has a [tool.kcheck] section and this Python ({sys.version.split()[0]}) "
                                 "has no TOML parser. Fix: pip install tomli, or use Python 3.11+ (tomllib)")
    try:
        doc = _TOML_LOADS(text)
    except ValueError as exc:  # tomllib.TOMLDecodeError is a ValueError
        raise SpecError("pyproject.toml", str(path), f"is not valid TOML: {exc}") from None
    section = doc.get("tool", {}).get("kcheck", {})
    where = f"{path}: [tool.kcheck]"
    if not isinstance(section, dict):
        raise SpecError(f"{where}", section, "make tool.kcheck a table of settings")
    names = [s.name for s in Options.settings("pyproject")]
    out: dict[str, Any] = {}
    for key, value in section.items():
        name = key.replace("-", "_")
        if name not in names:
            every = [s.name for s in Options.settings()]
            why = Options.setting(name).absent["pyproject"] if name in every else None
            if why:
                raise SpecError(f"{where} {key}", value, f"not read from pyproject.toml: {why}")
            style = [n.replace("_", "-") if "-" in key else n for n in names]  # suggest in the key's own spelling
            raise SpecError(f"{where} {key}", value, f"not a kcheck option; {_close(key, style)}the keys are "
                            f"{', '.join(style)}")
        setting = Options.setting(name)
        try:
            out[name] = setting.validate(name, value)
        except SpecError as exc:
            raise SpecError(f"{where} {key}", exc.value, exc.fix) from None
    return out


# --- the command line and the pytest plugin ---------------------------------------------------------------------

def add_arguments(add: Callable[..., Any], surface: str, *, prefix: str = "--", dest_prefix: str = "") -> None:
    """Add the flags of every setting shown on ``surface`` through ``add`` (argparse's ``add_argument`` or pytest's
    ``addoption``); every value is None unless given, so :func:`surface_options` can layer them."""
    for setting in Options.settings(surface):
        for flags, kwargs in setting.arguments(surface, prefix, dest_prefix):
            add(*flags, **kwargs)


def surface_options(surface: str, given: Callable[[str], Any], near: str | Path | None = None) -> Options:
    """The Options of a command-line command or the pytest plugin: the surface's defaults < the ``[tool.kcheck]``
    section of the pyproject.toml nearest ``near`` < the flags given (``given(name)``: the parsed value, None when
    the flag was not given)."""
    options = Options.from_pyproject(near, base=Options.defaults(surface))
    flags = {s.name: value for s in Options.settings(surface) if (value := given(s.name)) is not None}
    return options.replace(**flags)


__all__ = ["NOT_OPTIONS", "SURFACES", "Options", "Setting", "add_arguments", "find_pyproject", "read_pyproject",
           "surface_options"]
