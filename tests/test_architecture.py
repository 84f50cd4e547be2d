"""The house rules that keep kcheck easy to extend, as tests: layers import downward and only public names; no code
outside ``backends/`` compares a framework's name; no logic reads a reason's words; kinds survive a worker's pipe."""

from __future__ import annotations

import ast
import pickle
from pathlib import Path

import pytest

import kcheck

SRC = Path(kcheck.__file__).resolve().parent

#: The layers, lowest first: a module may import its own layer and those below, never one above. Top-level modules
#: are named as they are (``_spec``); a package by its folder (``cases``). Written once, here and in README's Layout.
LAYERS: list[set[str]] = [
    {"_errors", "_findings", "_dtypes", "_resources", "_device", "_forkserver"},  # vocabulary
    {"compare", "interpret", "lint"},  # no kernel runs here
    {"properties"},
    {"_spec"},  # the contract
    {"cases"},  # sizes, precisions, data
    {"_results", "_discover"},
    {"backends"},  # one object per framework
    {"run", "journal"},  # the one route that runs a case
    {"sanitize"},
    {"_options", "_check"},  # check() and its options
    {"report"},  # kinds become words here
    {"diagnose"},  # the debugger
    {"bench", "evaluation"},  # tools built on the above
    {"cli", "pytest_plugin", "__init__", "__main__", "_entry"},  # the surfaces
]
LAYER = {unit: i for i, units in enumerate(LAYERS) for unit in units}


def _modules() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py"))


def _unit(path: Path) -> str:
    rel = path.relative_to(SRC)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def _typing_only(tree: ast.AST) -> set[int]:
    """Lines of imports under ``if TYPE_CHECKING:``: annotations only, no dependency when the code runs."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            lines |= {n.lineno for stmt in node.body for n in ast.walk(stmt)}
    return lines


def _imports(path: Path) -> list[tuple[int, list[str]]]:
    """Every relative import that runs (module level or in functions) as (line, absolute parts)."""
    package = list(path.relative_to(SRC).parts[:-1])
    tree = ast.parse(path.read_text())
    typing_only = _typing_only(tree)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level > 0 and node.lineno not in typing_only:
            base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
            if node.module:
                out.append((node.lineno, base + node.module.split(".")))
                continue
            for alias in node.names:  # from .. import name: a module or package of its own, else the facade
                mod = [*base, alias.name]
                is_module = (SRC.joinpath(*mod).is_dir() or SRC.joinpath(*mod).with_suffix(".py").exists())
                out.append((node.lineno, mod if is_module else (base or ["__init__"])))
    return out


def test_every_unit_has_a_layer():
    assert {_unit(p) for p in _modules()} <= set(LAYER), set(map(_unit, _modules())) - set(LAYER)


def test_layers_import_downward_only():
    upward = []
    for path in _modules():
        unit = _unit(path)
        for line, mod in _imports(path):
            target = mod[0]
            if target != unit and LAYER[target] > LAYER[unit]:
                upward.append(f"{path.relative_to(SRC)}:{line} ({unit}, layer {LAYER[unit]}) imports "
                              f"{'.'.join(mod)} (layer {LAYER[target]})")
    assert not upward, "\n".join(upward)


def test_no_private_module_of_another_package_is_imported():
    private = []
    for path in _modules():
        unit = _unit(path)
        for line, mod in _imports(path):
            inner = mod[1:]
            if mod[0] != unit and (SRC / mod[0]).is_dir() and any(part.startswith("_") for part in inner):
                private.append(f"{path.relative_to(SRC)}:{line} imports {'.'.join(mod)}")
    assert not private, "\n".join(private)


def _string_compares(tree: ast.AST, names: set[str]) -> list[int]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            consts = [c.value for c in [node.left, *node.comparators] if isinstance(c, ast.Constant)]
            if any(isinstance(v, str) and v in names for v in consts):
                found.append(node.lineno)
    return found


def test_no_framework_name_is_compared_outside_backends():
    frameworks = {b.name for b in kcheck.backends.backends()} - {"cuda"}  # "cuda" is also torch's device name
    hits = []
    for path in _modules():
        if _unit(path) in ("backends", "lint"):  # the static checks read source languages, not a Spec's framework
            continue
        tree = ast.parse(path.read_text())
        hits += [f"{path.relative_to(SRC)}:{n}" for n in _string_compares(tree, frameworks)]
        hits += [f"{path.relative_to(SRC)}:{node.lineno}" for node in ast.walk(tree) if isinstance(node, ast.Compare)
                 and any(isinstance(x, ast.Attribute) and x.attr == "framework"
                         for x in [node.left, *node.comparators])]
    assert not hits, hits


def test_no_logic_reads_the_words_of_a_reason_or_a_warning():
    """`"the kernel raised" in reason` or `warning.startswith(...)` over a result's reasons/warnings: rewording a
    message would change a diagnosis. Code reads ``Reason.kind``."""
    hits = []
    for path in _modules():
        tree = ast.parse(path.read_text())
        for comp in ast.walk(tree):
            if not isinstance(comp, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
                continue
            over = {g.target.id for g in comp.generators if isinstance(g.target, ast.Name)
                    and isinstance(g.iter, ast.Attribute) and g.iter.attr in ("reasons", "warnings")}
            for node in ast.walk(comp):
                if isinstance(node, ast.Compare) and isinstance(node.left, ast.Constant) \
                        and isinstance(node.ops[0], ast.In) and any(
                            isinstance(c, ast.Name) and c.id in over for c in node.comparators):
                    hits.append(f"{path.relative_to(SRC)}:{node.lineno}")
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                        and node.func.attr in ("startswith", "endswith") \
                        and isinstance(node.func.value, ast.Name) and node.func.value.id in over:
                    hits.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert not hits, hits


def test_a_reason_keeps_its_kind_through_a_pipe_and_reads_as_text():
    from kcheck._results import Reason, ReasonKind, kind_of

    r = Reason("the kernel raised ValueError: x", ReasonKind.KERNEL_RAISED)
    back = pickle.loads(pickle.dumps(r))
    assert back == "the kernel raised ValueError: x" and back.kind is ReasonKind.KERNEL_RAISED
    assert kind_of("plain text") is ReasonKind.NOTE and "; ".join([back, "b"]).startswith("the kernel")


def test_a_case_result_in_json_carries_its_kinds():
    import torch

    spec = kcheck.Spec(name="arch_boom", kernel=lambda x: 1 / 0, reference=torch.neg, inputs=[kcheck.Tensor("N")],
                       dims={"N": kcheck.Dim(8)}, dtypes=("fp32",))
    from kcheck._results import to_jsonable

    res = kcheck.check(spec, tier="quick", large=False).specs[0].cases[0]
    data = to_jsonable(res)
    assert data["reason_kinds"] == ["kernel-raised"] and res.reasons_of(kcheck.ReasonKind.KERNEL_RAISED)


@pytest.mark.parametrize("wrap", ["zeroed", "scaled", "swapped"])
def test_the_debugger_s_wrappers_keep_the_kernel_s_backend(wrap):
    """A probe's wrapper of a Triton launcher is still a Triton kernel (its interpreter checks apply): without it,
    a probe ran a wild store unchecked in the debugger's process."""
    pytest.importorskip("triton")
    import importlib
    import sys

    from kcheck.backends import backend_of
    from kcheck.diagnose._probe import scaled, swapped_inputs, zeroed_outputs

    sys.path.insert(0, str(SRC.parents[1] / "examples"))
    try:
        spec = importlib.import_module("vector_add").spec
    finally:
        sys.path.pop(0)
    variant = {"zeroed": zeroed_outputs(spec), "scaled": scaled(spec, 2.0), "swapped": swapped_inputs(spec, 0, 1)}[wrap]
    assert backend_of(variant.kernel).name == "triton"


#: The functions that may import kcheck's own modules at call time: the entries of worker processes and scripts
#: (they set the process up, e.g. Triton's interpreter, before the package's imports run) and the one import of
#: Triton's journal helpers (an optional dependency that switches on the interpreter where no GPU is). Anywhere
#: else a function-level import hides a dependency, or a cycle between modules, from the layer test.
CALL_TIME_IMPORTS = {
    ("backends/_triton_compile.py", "main"), ("backends/_triton_compile.py", "ptxas_resources"),
    ("bench/_worker.py", "_serve"), ("diagnose/_journal.py", "run_journaled"), ("diagnose/_journal.py", "_worker"),
    ("evaluation/_isolate.py", "_child"), ("run/_isolate.py", "_serve"), ("run/_isolate.py", "_resources"),
    ("sanitize/_worker.py", "main"), ("_entry.py", "main"),
}


def test_own_modules_are_imported_at_module_level_outside_worker_entries():
    found = set()
    for path in _modules():
        for fn in ast.walk(ast.parse(path.read_text())):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.ImportFrom) and node.level > 0:
                    found.add((str(path.relative_to(SRC)), fn.name))
    assert found <= CALL_TIME_IMPORTS, sorted(found - CALL_TIME_IMPORTS)
