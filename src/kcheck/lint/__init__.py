"""Static checks of kernel sources for the traps that large sizes and thread divergence spring.

    from kcheck.lint import lint_path, format_finding
    for f in lint_path("kernels/"):
        print(format_finding(f))

Seven rules, each reported as a :class:`~kcheck._findings.Finding` with ``tool="lint"``, the file, the line and the
enclosing function as ``kernel``:

- ``int32-index-overflow`` (CUDA C, error): a 32-bit ``int``/``unsigned`` derived from blockIdx (directly or through
  int variables) multiplied, in 32 bits, by a runtime 32-bit size (an int parameter or local, not a literal, macro,
  template or const constant), where the product indexes global memory: a subscript, pointer arithmetic, or an integer
  variable later used as an index: ``a[idx * m + j]``. A 64-bit cast on either operand, or a 64-bit variable, clears it;
  a cast of the product does not (it already wrapped). Shared and local arrays, and products of the thread index
  alone (bounded by the block size), are left out.
- ``divergent-barrier`` (CUDA C, error): ``__syncthreads()`` (and its _count/_and/_or forms) inside an if/else/switch
  or a loop whose condition depends on threadIdx, directly or through variables (control dependences included);
  block- or grid-stride loops (``for (i = threadIdx.x; i < bound; i += stride)`` with bound and stride uniform) are
  left out. A call, under such a branch or loop, of a function of the same source that reaches ``__syncthreads()``
  (itself or through other such functions: a block reduction helper) counts as the barrier. ``__syncwarp()`` with the
  full mask inside a branch on threadIdx.x that differs within a warp. A warning: a ``return`` under a branch on
  threadIdx before a store to a ``__shared__`` array and a later block barrier (``if (col >= n) return;`` before the
  staging loop): the threads that leave never stage their slots, which the others may read after the barrier (a
  halo, a tail); since Volta the barrier waits for the threads that have not exited only, so it does not hang.
- ``triton-pid-stride-int32`` (Triton): ``tl.program_id`` (or a value derived from it, not cast to int64) times a
  runtime (non-constexpr) size or stride: error; times a named ``tl.constexpr`` (``pid * BLOCK``): warning, as it wraps
  only past 2**31 elements. Reported only when the product's value reaches the pointer of a load/store/atomic (or a
  block pointer's base), at the product's line; a product that a later product subsumes is reported once, the outer.
- ``triton-unmasked-access`` (Triton): tl.load/tl.store/tl.atomic_* of a ``tl.arange`` vector whose lanes are shifted
  by a base that grows with the program id (or with a loop over a runtime bound) with no mask, or with a mask that
  leaves that axis out; block pointers whose growing dimensions are missing from ``boundary_check``. Error when the
  kernel masks other accesses (it knows about tails), warning when it masks none (it may rely on sizes being
  multiples of the block). Scalar accesses (``ptr + pid``), fixed windows (``ptr + tl.arange``), lanes wrapped with
  ``% M`` and the unchecked twin of a constexpr-selected fast path (``if EVEN_N: tl.load(p) else: tl.load(p, mask)``)
  are left out.
- ``triton-size-product-int32`` (Triton, warning): two runtime integer arguments multiplied (``M * N``) with neither
  cast to int64, where the product reaches a mask, a pointer or a branch's condition: Triton passes each argument as
  int32 when it fits, so the product wraps once it passes 2**31, and a mask ``offs < M * N`` turns false everywhere
  (nothing is stored). A warning: the product may be bounded in practice (two small dimensions).
- ``triton-atomic-readback`` (Triton, warning): a plain ``tl.load`` of the same pointer expression that the kernel
  updated with ``tl.atomic_*`` earlier (``tl.atomic_add(total_ptr + b, s)`` then ``tl.load(total_ptr + b)``):
  programs do not wait for one another, so the load sees only the adds that landed first; the total is read whole
  only by a second kernel launched after. ``volatile=True`` loads (a program spinning on a counter the others raise)
  and loads of other expressions (a look-back reading its predecessor's slot) are left out.

- ``triton-global-not-constexpr`` (Triton, error): a ``@triton.jit`` kernel reads a module-level name bound to a
  plain Python value (``EPS = 1e-8``: a literal, or arithmetic and tuples of literals; annotated too,
  ``EPS: tl.constexpr = 1e-8``, which Triton 3.2 on does not take as a constexpr) and never to a
  ``tl.constexpr(...)`` instance. Triton's compiler refuses it ("Cannot access global variable ... from within
  @jit'ed function"), so every launch raises on a GPU, while Triton's interpreter reads it: a kernel checked on a
  CPU alone passes. Names the kernel binds itself and globals bound to anything else (a call, an import) are left
  out.

Files that cannot be parsed give one ``unparsable`` warning, never an exception. CUDA C sources held in Python string
constants (``SOURCE = r'''extern "C" __global__ ...'''``) are checked too, with the lines of the Python file.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from pathlib import Path

from .._findings import Finding
from ._cuda import lint_cuda
from ._triton import lint_triton

__all__ = ["CUDA_SUFFIXES", "KINDS", "PYTHON_SUFFIXES", "format_finding", "format_findings", "lint_path",
           "lint_source"]

KINDS = ("int32-index-overflow", "triton-pid-stride-int32", "triton-unmasked-access", "divergent-barrier",
         "triton-size-product-int32", "triton-atomic-readback", "triton-global-not-constexpr", "unparsable")
CUDA_SUFFIXES = frozenset({".cu", ".cuh", ".cpp", ".cc", ".cxx", ".h", ".hpp"})
PYTHON_SUFFIXES = frozenset({".py"})
_SKIP_DIRS = frozenset({"__pycache__", ".venv", "venv", "node_modules", "site-packages"})
_CUDA_IN_STRING = re.compile(r"__global__\s+\w")


def lint_source(text: str, path: str | Path = "<source>", language: str | None = None) -> list[Finding]:
    """Findings in one source. ``language``: "cuda" or "triton"; by default from the suffix (.cu .cuh .cpp .cc .h
    .hpp: cuda; .py: triton, plus the CUDA C held in its string constants)."""
    path = str(path)
    if language is None:
        suffix = Path(path).suffix.lower()
        if suffix in CUDA_SUFFIXES:
            language = "cuda"
        elif suffix in PYTHON_SUFFIXES:
            language = "triton"
        else:
            raise ValueError(f"cannot tell the language of {path!r} from its suffix; pass language='cuda' or 'triton'")
    if language == "cuda":
        return lint_cuda(text, path)
    if language != "triton":
        raise ValueError(f"language must be 'cuda' or 'triton', not {language!r}")
    try:
        tree = ast.parse(text, filename=path)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        line = getattr(exc, "lineno", None)
        msg = getattr(exc, "msg", None) or str(exc)
        return [Finding(tool="lint", kind="unparsable", severity="warning", file=path, line=line,
                        message=f"not valid Python ({msg}): no static check ran on this file; fix the syntax error")]
    return lint_triton(tree, path) + _embedded_cuda(tree, text, path)


def _embedded_cuda(tree: ast.Module, text: str, path: str) -> list[Finding]:
    """CUDA C in string constants (the source a launcher compiles), reported at the Python file's lines."""
    found: list[Finding] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str) and _CUDA_IN_STRING.search(node.value)):
            continue
        src: str = node.value
        start, end = node.lineno, node.end_lineno or node.lineno
        if end - start == src.count("\n"):  # one string literal, newlines as written: lines map one to one
            line_of = {i + 1: start + i for i in range(src.count("\n") + 1)}
        else:  # escapes or implicit concatenation: report at the string's first line
            line_of = {i + 1: start for i in range(src.count("\n") + 1)}
        found += lint_cuda(src, path, line_of)
    return found


def lint_path(path: str | Path) -> list[Finding]:
    """Findings in a file, or in every .py/.cu/.cuh/.cpp/.cc/.h/.hpp file under a folder (recursively, skipping
    hidden folders, __pycache__ and virtual environments), in path order."""
    root = Path(path)
    files = [root] if root.is_file() else sorted(_files(root))
    found: list[Finding] = []
    for f in files:
        try:
            text = f.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            found.append(Finding(tool="lint", kind="unparsable", severity="warning", file=str(f), line=None,
                                 message=f"could not read the file ({exc.strerror or exc}): no static check ran"))
            continue
        suffix = f.suffix.lower()
        if suffix in CUDA_SUFFIXES or (suffix not in PYTHON_SUFFIXES and "__global__" in text):
            found += lint_source(text, f, "cuda")
        else:  # .py, or a file named on the command line with another suffix
            found += lint_source(text, f, "triton")
    return found


def _files(root: Path) -> Iterable[Path]:
    if not root.is_dir():
        raise FileNotFoundError(f"no such file or folder: {root}")
    for p in root.iterdir():
        if p.is_dir():
            if not p.name.startswith(".") and p.name not in _SKIP_DIRS:
                yield from _files(p)
        elif p.suffix.lower() in CUDA_SUFFIXES | PYTHON_SUFFIXES:
            yield p


def format_finding(f: Finding) -> str:
    """One compiler-style line: ``path:line: error: [kind] in kernel: message``."""
    where = f"{f.file}:{f.line}" if f.line is not None else f"{f.file}"
    kernel = f" in {f.kernel}" if f.kernel else ""
    return f"{where}: {f.severity}: [{f.kind}]{kernel}: {f.message}"


def format_findings(findings: Iterable[Finding]) -> str:
    """All findings, one line each, then a count: ``2 errors, 1 warning`` (or ``no findings``)."""
    findings = list(findings)
    lines = [format_finding(f) for f in findings]
    errors = sum(f.severity == "error" for f in findings)
    warnings = len(findings) - errors
    if not findings:
        lines.append("no findings")
    else:
        lines.append(f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}")
    return "\n".join(lines)
