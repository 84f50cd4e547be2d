"""The internals of Triton's interpreter that kcheck.interpret patches, found and verified before any patching.

Triton's interpreter (``triton/runtime/interpreter.py``) has no hooks, so kcheck wraps a few of its methods. They
were read in triton 3.6.0 and 3.7.1, where they are the same; a Triton whose interpreter moved any of them, renamed
their parameters, or reaches memory from another method fails here with :class:`InterpreterMismatch`, naming the
version and what was not found, instead of checking nothing silently.
"""

from __future__ import annotations

import ast
import inspect
import os
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType
from typing import Any

#: Triton versions whose interpreter these patches were written against and tested on.
TESTED_VERSIONS = ("3.6", "3.7")

#: (class, method) -> parameter names, as in triton 3.6 and 3.7.
SIGNATURES: dict[tuple[str, str], tuple[str, ...]] = {
    ("InterpreterBuilder", "create_masked_load"): (
        "self", "ptrs", "mask", "other", "cache_modifier", "eviction_policy", "is_volatile"),
    ("InterpreterBuilder", "create_masked_store"): (
        "self", "ptrs", "value", "mask", "cache_modifier", "eviction_policy"),
    ("InterpreterBuilder", "create_atomic_rmw"): ("self", "rmwOp", "ptr", "val", "mask", "sem", "scope"),
    ("InterpreterBuilder", "create_atomic_cas"): ("self", "ptr", "cmp", "val", "sem", "scope"),
    ("InterpreterBuilder", "set_grid_idx"): ("self", "x", "y", "z"),
    ("InterpreterBuilder", "set_grid_dim"): ("self", "nx", "ny", "nz"),
    ("GridExecutor", "__call__"): ("self", "args_dev", "kwargs"),
    ("GridExecutor", "_init_args_hst"): ("self", "args_dev", "kwargs"),
}

#: Each call of the interpreter's C++ core that touches memory, and the one method allowed to make it.
CORE_CALLS = {
    "load": "create_masked_load",
    "store": "create_masked_store",
    "atomic_rmw": "create_atomic_rmw",
    "atomic_cas": "create_atomic_cas",
}

#: Calls GridExecutor.__call__ must make (on the module's interpreter_builder) for launches to be followed.
GRID_CALLS = ("_init_args_hst", "set_grid_dim", "set_grid_idx")


class InterpreterMismatch(RuntimeError):
    """This Triton's interpreter lacks an internal that kcheck.interpret patches (its internals changed)."""


@dataclass(frozen=True)
class Internals:
    module: ModuleType  # triton.runtime.interpreter
    version: str  # triton.__version__
    builder_cls: type
    executor_cls: type
    handle_cls: type  # TensorHandle
    rewritten: dict[Any, Any]  # InterpretedFunction.rewritten_fn: original fn -> rewritten fn
    relaxed: Any  # the IR's MEM_SEMANTIC.RELAXED (atomics with it order nothing)
    tensor_descriptor: type | None
    triton_dir: str  # the triton package's folder: frames there are not user code


def _fail(version: str, what: str) -> InterpreterMismatch:
    tested = " and ".join(TESTED_VERSIONS)
    return InterpreterMismatch(
        f"kcheck.interpret cannot check kernels in triton {version}'s interpreter: {what} "
        f"(kcheck patches the interpreter of triton {tested}; its internals changed)")


def _enclosing_calls(tree: ast.Module) -> dict[str, list[tuple[str, str]]]:
    """For each call ``name.attr(...)`` in the module (``_interpreter.load(...)``, ``self.set_grid_idx(...)``): the
    (class, function) pairs it is made from, class "" for a module-level function, function "" at module level."""
    calls: dict[str, list[tuple[str, str]]] = {}

    def visit(node: ast.AST, cls: str, fn: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, child.name, "")
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, cls, child.name if not fn else fn)
            else:
                if (isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute)
                        and isinstance(child.func.value, ast.Name)):
                    calls.setdefault(f"{child.func.value.id}.{child.func.attr}", []).append((cls, fn))
                visit(child, cls, fn)

    visit(tree, "", "")
    return calls


@lru_cache(maxsize=1)
def internals() -> Internals:
    """Find and verify the interpreter's internals; raise :class:`InterpreterMismatch` when one is missing."""
    try:
        import triton
    except ImportError as e:  # pragma: no cover - kcheck's Triton support needs triton
        raise InterpreterMismatch(f"kcheck.interpret needs triton: {e}") from e
    version = getattr(triton, "__version__", "?")
    try:
        from triton.runtime import interpreter as module
    except Exception as e:
        raise _fail(version, f"triton.runtime.interpreter does not import ({e!r})") from e

    found: dict[str, Any] = {}
    for name in ("InterpreterBuilder", "GridExecutor", "TensorHandle", "InterpretedFunction", "interpreter_builder",
                 "_ir"):
        if not hasattr(module, name):
            raise _fail(version, f"triton.runtime.interpreter.{name} was not found")
        found[name] = getattr(module, name)
    for (cls_name, meth), params in SIGNATURES.items():
        cls = found[cls_name]
        fn = cls.__dict__.get(meth)
        if fn is None or not callable(fn):
            raise _fail(version, f"{cls_name}.{meth} was not found")
        fn = getattr(fn, "__wrapped__", fn)  # our own wrapper, if patched already
        try:
            got = tuple(p.name for p in inspect.signature(fn).parameters.values())
        except (TypeError, ValueError) as e:
            raise _fail(version, f"{cls_name}.{meth} has no readable signature") from e
        if got != params:
            raise _fail(version, f"{cls_name}.{meth}{tuple(got[1:])} takes other parameters than the expected "
                                 f"{params[1:]}")
    rewritten = getattr(found["InterpretedFunction"], "rewritten_fn", None)
    if not isinstance(rewritten, dict):
        raise _fail(version, "InterpretedFunction.rewritten_fn (the cache of rewritten kernel functions) was not found")
    if not isinstance(found["interpreter_builder"], found["InterpreterBuilder"]):
        raise _fail(version, "interpreter_builder is not an InterpreterBuilder")
    relaxed = getattr(getattr(found["_ir"], "MEM_SEMANTIC", None), "RELAXED", None)
    if relaxed is None:
        raise _fail(version, "ir.MEM_SEMANTIC.RELAXED was not found")

    # Every memory access of the C++ core must come from the method kcheck patches for it, and the grid loop must
    # go through the calls kcheck follows.
    try:
        tree = ast.parse(inspect.getsource(module))
    except (OSError, TypeError, SyntaxError) as e:
        raise _fail(version, f"the interpreter's source could not be read ({e!r})") from e
    calls = _enclosing_calls(tree)
    for key, where in calls.items():
        owner, _, attr = key.partition(".")
        if owner != "_interpreter":
            continue
        callers = ", ".join(f"{c}.{f}" for c, f in where)
        if attr not in CORE_CALLS:  # a core call kcheck does not know may touch memory behind its back
            raise _fail(version, f"_interpreter.{attr}, called from {callers}, is not one kcheck knows")
        if any((c, f) != ("InterpreterBuilder", CORE_CALLS[attr]) for c, f in where):
            raise _fail(version, f"_interpreter.{attr} is called from {callers}, not only from "
                                 f"InterpreterBuilder.{CORE_CALLS[attr]}")
    for attr, allowed in CORE_CALLS.items():
        if ("InterpreterBuilder", allowed) not in calls.get(f"_interpreter.{attr}", []):
            raise _fail(version, f"InterpreterBuilder.{allowed} no longer calls _interpreter.{attr}")
    for name in GRID_CALLS:
        owners = calls.get(f"interpreter_builder.{name}", []) + calls.get(f"self.{name}", [])
        if ("GridExecutor", "__call__") not in owners:
            raise _fail(version, f"GridExecutor.__call__ no longer calls {name}")

    tensor_descriptor = getattr(module, "TensorDescriptor", None)
    return Internals(module=module, version=version, builder_cls=found["InterpreterBuilder"],
                     executor_cls=found["GridExecutor"], handle_cls=found["TensorHandle"], rewritten=rewritten,
                     relaxed=relaxed, tensor_descriptor=tensor_descriptor if isinstance(tensor_descriptor, type)
                     else None, triton_dir=os.path.dirname(triton.__file__))
