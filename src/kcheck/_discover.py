"""Find the module-level Specs in a file or a folder of Python files."""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path

from ._errors import SpecError
from ._spec import Spec


@dataclass
class Found:
    path: Path
    specs: list[Spec]
    error: str | None = None  # importing the file raised


def python_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise SpecError("PATH", str(path), "give an existing .py file or a folder holding them")
    return sorted(p for p in path.rglob("*.py") if not any(part.startswith((".", "__")) for part in p.parts[-2:]))


def load_module(file: Path) -> object:
    """Import ``file`` under a unique name, its folder on sys.path so that sibling imports work."""
    folder = str(file.parent.resolve())
    if folder not in sys.path:
        sys.path.insert(0, folder)
    name = "kcheck_user_" + "_".join(file.resolve().with_suffix("").parts[-3:]).replace("-", "_").replace(".", "_")
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, file)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {file}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def discover(path: str | Path) -> list[Found]:
    """Every module-level Spec in ``path`` (a .py file or a folder, searched recursively), per file."""
    out = []
    for file in python_files(Path(path)):
        try:
            module = load_module(file)
        except Exception as exc:
            out.append(Found(file, [], f"{type(exc).__name__}: {exc}"))
            continue
        seen: set[int] = set()
        specs = []
        for value in vars(module).values():
            if isinstance(value, Spec) and id(value) not in seen:
                seen.add(id(value))
                specs.append(value)
        if specs:
            out.append(Found(file, specs))
    return out
