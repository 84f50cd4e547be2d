"""Find the module-level Specs in a file or a folder of Python files.

The rule (docs/discovery.md says the same for users):

* A FILE given explicitly is always imported, whatever its name or content.
* A FOLDER is walked recursively. Sub-folders that are not the user's source are not entered: hidden ones (a name
  starting with ``.``), ``__pycache__``, ``build``, ``dist``, ``site-packages``, ``dist-packages``,
  ``node_modules``, ``venv``, ``*.egg-info``, ``*.egg``, and any virtualenv or conda environment (a folder holding
  ``pyvenv.cfg``, ``conda-meta``, ``bin/activate`` or ``Scripts/activate``). Only folders below the one given are
  judged: the folder given may itself be hidden or named ``build``.
* In a folder, a ``.py`` file is imported only when it can hold a Spec: its text imports kcheck (a line
  ``import kcheck ...`` or ``from kcheck ...``, found by reading the text, without importing it). ``setup.py``,
  ``conftest.py``, ``conf.py`` (Sphinx), hidden files and ``__*.py`` files (``__init__.py``, ``__main__.py``) are
  never imported from a folder walk.
* Each import has a time limit (``IMPORT_TIMEOUT`` seconds; ``import_timeout=0`` or ``None`` for none). The limit
  uses SIGALRM, so it applies only in the main thread of a process whose real-time interval timer is not already
  in use; elsewhere the import runs without a limit.
* Every file a folder walk finds is reported by ``discover`` as a ``Found``: ``skipped`` says why it was not
  imported, ``error`` why its Specs cannot run (its import raised or timed out, or two of its Specs share a name).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import signal
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any

from ._errors import KcheckError, SpecError
from ._spec import Spec

IMPORT_TIMEOUT = 60.0
"""Seconds one import of a user's file may take before kcheck gives up on that file."""

SKIPPED_DIRS = frozenset({"__pycache__", "build", "dist", "site-packages", "dist-packages", "node_modules", "venv"})
SKIPPED_DIR_SUFFIXES = (".egg-info", ".egg")
ENV_MARKERS = ("pyvenv.cfg", "conda-meta", "bin/activate", "Scripts/activate", "Scripts/activate.bat")
NEVER_IMPORTED = frozenset({"setup.py", "conftest.py", "conf.py"})
IMPORTS_KCHECK = re.compile(rb"^[ \t]*(?:import[ \t]+[^\n#]*\bkcheck\b|from[ \t]+kcheck\b)", re.MULTILINE)


class ImportTimeout(KcheckError, TimeoutError):
    """Importing a user's file did not finish within the time limit (it blocks or loops at module level)."""

    def __init__(self, file: Path, seconds: float) -> None:
        self.file = file
        self.seconds = seconds
        super().__init__(f"import did not finish within {seconds:g} s: {file} blocks or loops at module level "
                         "(move that work into a function, or raise the limit with import_timeout; 0 = no limit)")


class _Deadline(BaseException):
    """Raised inside the user's module by the alarm; a BaseException so that ``except Exception`` there keeps
    going to the limit. load_module turns it into ImportTimeout."""


@dataclass
class Found:
    """One Python file a discovery looked at.

    ``specs``: its module-level Specs that can run (a Spec whose name another Spec of the file also has is left
    out). ``error``: why some or all of them cannot run (the import raised or timed out; two Specs share a name).
    ``skipped``: why a folder walk did not import the file (None when it was imported).
    """

    path: Path
    specs: list[Spec] = field(default_factory=list)
    error: str | None = None
    skipped: str | None = None

    @property
    def imported(self) -> bool:
        return self.skipped is None


def _is_environment(folder: Path) -> bool:
    return any((folder / marker).exists() for marker in ENV_MARKERS)


def _skipped_dir(folder: Path) -> bool:
    name = folder.name
    return (name.startswith(".") or name in SKIPPED_DIRS or name.endswith(SKIPPED_DIR_SUFFIXES)
            or _is_environment(folder))


def _walk(root: Path) -> list[Path]:
    """The .py files under ``root``, not entering the folders the rule skips (``root`` itself is always entered)."""
    files: list[Path] = []
    for folder, dirs, names in os.walk(root):
        here = Path(folder)
        dirs[:] = sorted(d for d in dirs if not _skipped_dir(here / d))
        files += [here / n for n in names if n.endswith(".py")]
    return sorted(files)


def skip_reason(file: Path) -> str | None:
    """Why a folder walk does not import ``file`` (None: it does)."""
    name = file.name
    if name in NEVER_IMPORTED:
        return f"{name} is never imported from a folder (give the file itself to import it)"
    if name.startswith((".", "__")):
        return "hidden or dunder file"
    try:
        text = file.read_bytes()
    except OSError as exc:
        return f"cannot be read: {exc.strerror or exc}"
    if not IMPORTS_KCHECK.search(text):
        return "does not import kcheck"
    return None


def _examined(path: Path) -> list[Found]:
    """Every file a discovery of ``path`` looks at; the ones not to import carry ``skipped``."""
    if path.is_file():
        return [Found(path)]
    if not path.is_dir():
        raise SpecError("PATH", str(path), "give an existing .py file or a folder holding them")
    return [Found(file, skipped=skip_reason(file)) for file in _walk(path)]


def python_files(path: Path) -> list[Path]:
    """The files a discovery of ``path`` imports: the file itself, or the folder's files that the rule keeps."""
    return [f.path for f in _examined(path) if f.imported]


def module_name(file: Path) -> str:
    """The name ``file`` is imported under: readable (its stem) and unique per resolved path (a hash of it), the
    same in every process, so that a worker re-importing the file gets the same module."""
    resolved = str(file.resolve())
    digest = hashlib.sha256(resolved.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    stem = re.sub(r"\W", "_", file.stem, flags=re.ASCII)
    return f"kcheck_user_{stem}_{digest}"


class _TimeLimit:
    """Raise ``_Deadline`` in the main thread once ``seconds`` have passed (SIGALRM), then every 0.1 s until
    disarmed, so that a handler in the user's code cannot swallow it for good. No limit outside the main thread,
    without setitimer, or while the real-time timer is already in use by someone else (it is left alone)."""

    REPEAT = 0.1

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.active = False
        self.installed = False
        self.previous: signal._HANDLER = None

    def _fire(self, signum: int, frame: FrameType | None) -> None:
        if self.active:
            raise _Deadline

    def arm(self) -> None:
        if (not self.seconds or self.seconds <= 0 or not hasattr(signal, "setitimer")
                or threading.current_thread() is not threading.main_thread()
                or signal.getitimer(signal.ITIMER_REAL)[0] > 0):
            return
        self.previous = signal.signal(signal.SIGALRM, self._fire)
        self.installed = self.active = True
        signal.setitimer(signal.ITIMER_REAL, self.seconds, self.REPEAT)

    def disarm(self) -> None:
        """Idempotent. An alarm comes at most every 0.1 s, so one that lands here is caught and this goes on."""
        if not self.installed:
            return
        for _ in range(3):
            try:
                self.active = False  # from here on an alarm does nothing
                break
            except _Deadline:
                continue
        self.active = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self.previous if self.previous is not None else signal.SIG_DFL)
        self.installed = False


def load_module(file: Path, *, import_timeout: float | None = IMPORT_TIMEOUT) -> ModuleType:
    """Import ``file`` under its own name (``module_name``), its folder on sys.path so that sibling imports work.

    A file already imported is not imported again. Raises what the import raised, or ``ImportTimeout`` when it did
    not finish within ``import_timeout`` seconds (0 or None: no limit); a failed import leaves nothing in
    sys.modules."""
    folder = str(file.parent.resolve())
    if folder not in sys.path:
        sys.path.insert(0, folder)
    name = module_name(file)
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, file)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {file}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    limit = _TimeLimit(import_timeout)
    try:
        limit.arm()
        spec.loader.exec_module(module)
        limit.disarm()
    except _Deadline:
        limit.disarm()
        sys.modules.pop(name, None)
        raise ImportTimeout(file, float(import_timeout or 0)) from None
    except BaseException:
        limit.disarm()
        sys.modules.pop(name, None)
        raise
    return module


def _specs_of(found: Found, module: ModuleType) -> None:
    """Fill ``found`` with the module's Specs; two distinct Specs with one name are an error and neither runs (a
    worker finds a Spec by file and name, so it would run the first one's kernel for both)."""
    by_name: dict[str, list[tuple[str, Spec]]] = {}
    seen: set[int] = set()
    for variable, value in vars(module).items():
        if isinstance(value, Spec) and id(value) not in seen:  # one Spec under two variables is one Spec
            seen.add(id(value))
            by_name.setdefault(value.name, []).append((variable, value))
    problems = []
    for name, holders in by_name.items():
        if len(holders) == 1:
            found.specs.append(holders[0][1])
        else:
            variables = ", ".join(v for v, _ in holders)
            problems.append(f"Specs {variables} are all named {name!r}: give each Spec a unique name")
    if problems:
        found.error = "; ".join(problems)


def discover(path: str | Path, *, import_timeout: float | None = IMPORT_TIMEOUT) -> list[Found]:
    """Every module-level Spec in ``path`` (a .py file, or a folder searched recursively by the rule in this
    module's docstring), as one ``Found`` per file looked at, in path order.

    A file that was imported has ``skipped`` None; its ``specs`` may be empty. ``error`` is set when the import
    raised (the exception's type and message), did not finish within ``import_timeout`` seconds (0 or None: no
    limit), or when two Specs of the file share a name. Raises SpecError when ``path`` does not exist."""
    out = _examined(Path(path))
    for found in out:
        if not found.imported:
            continue
        try:
            module = load_module(found.path, import_timeout=import_timeout)
        except ImportTimeout as exc:
            found.error = f"import did not finish within {exc.seconds:g} s (it blocks or loops at module level)"
            continue
        except Exception as exc:
            found.error = f"{type(exc).__name__}: {exc}"
            continue
        _specs_of(found, module)
    return out


@dataclass(frozen=True)
class SpecRef:
    """Where another process finds a Spec: the file of the module that holds it and its name; ``transform``, a
    picklable callable, changes the Spec found there (the debugger's probes: scaled data, zeroed outputs, ...)."""

    path: str
    name: str
    transform: Any = None


def locate(spec: Spec) -> SpecRef | None:
    """The module-level home of ``spec``, or None (a Spec built inside a function cannot be re-imported).

    A module other than the main script comes first: a script that takes a Spec from another module into a variable
    (``spec = module.my_spec`` under ``if __name__ == "__main__":``) holds it at its top level too, but a worker
    that imports the script does not run that block and would find no Spec there."""
    main, script = None, sys.modules.get("__main__")  # also ``__mp_main__``: multiprocessing's name for it
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if not path or not path.endswith(".py"):
            continue
        try:
            values = list(vars(module).values())
        except TypeError:
            continue
        if any(v is spec for v in values):
            if module is not script:
                return SpecRef(os.path.abspath(path), spec.name)
            main = main or SpecRef(os.path.abspath(path), spec.name)
    return main


def find_spec(ref: SpecRef, *, import_timeout: float | None = None) -> Spec:
    """Import ``ref``'s module (no time limit by default: the caller's own limit bounds it), take the Spec of that
    name and apply ``ref.transform``."""
    module = load_module(Path(ref.path), import_timeout=import_timeout)
    for value in vars(module).values():
        if isinstance(value, Spec) and value.name == ref.name:
            return ref.transform(value) if ref.transform is not None else value
    raise LookupError(f"no Spec named {ref.name!r} in {ref.path}")
