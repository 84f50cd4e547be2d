"""The program compute-sanitizer runs: a Spec's kernel on a list of cases, one after another, in one process.

    python -m kcheck.sanitize._worker MANIFEST PATH SPEC_NAME CASE_ID...

Each case's kernel call runs inside a function renamed ``kcheck_case_<i>``: compute-sanitizer records the Python
frames of each launch in its host backtrace, so every record names the case that caused it. Inputs are built and
the reference is *not* computed under the tool (it would cost 10-100x and its kernels are not under test); output
buffers are left unpoisoned (``torch.empty``) so that initcheck sees reads of memory nothing wrote. After each case
the worker appends a line to MANIFEST (``index<TAB>case id<TAB>ok|error: ...``), so the parent knows how far it got
if the process dies.
"""

from __future__ import annotations

import functools
import sys
import traceback
from collections.abc import Callable
from typing import Any

#: Printed to stdout around each case; compute-sanitizer prints its text records to the same stdout, in order, so
#: records that carry no host backtrace (racecheck's analysis summaries) are tied to the case they fall inside.
MARK = "kcheck-sanitize-case"


def _named(name: str, fn: Callable[[], Any]) -> Callable[[], Any]:
    def runner() -> Any:
        return fn()

    code = runner.__code__.replace(co_name=name)
    if hasattr(code, "co_qualname"):
        code = code.replace(co_qualname=name)  # type: ignore[call-arg]  # Python 3.11+
    runner.__code__ = code
    runner.__name__ = runner.__qualname__ = name
    return runner


def _wrap(name: str, call: Callable[[], Any]) -> Callable[[], Any]:
    return _named(name, call)


def _disable_pools() -> None:
    """CuPy's memory pool hides out-of-bounds accesses like PyTorch's caching allocator (env var, set by parent)."""
    if "cupy" in sys.modules:
        sys.modules["cupy"].cuda.set_allocator(None)


def main(argv: list[str]) -> int:
    manifest, path, spec_name, *ids = argv
    from .._device import detect, enable_interpreter_if_no_gpu
    from .._discover import SpecRef, find_spec
    from ..cases import build_matrix, case_from_id
    from ..run import RunOptions, execute

    enable_interpreter_if_no_gpu()
    spec = find_spec(SpecRef(path, spec_name))
    device = detect()
    by_id = {c.id: c for c in build_matrix(spec, device)}
    _disable_pools()
    with open(manifest, "a", buffering=1) as log:
        for i, case_id in enumerate(ids):
            case = by_id.get(case_id) or case_from_id(spec, case_id)  # a probe's case: not in the matrix
            print(f"{MARK} begin {i}", flush=True)
            ex = execute(spec, case, device, RunOptions(interpreter_checks=False), reference=False, baseline=False,
                         poison=False, wrap=functools.partial(_wrap, f"kcheck_case_{i}"))
            if ex.exception is None:
                status = "ok"
            else:
                exc = ex.exception
                status = "error: " + (str(exc).strip().splitlines() or [type(exc).__name__])[0]
                traceback.print_exception(type(exc), exc, exc.__traceback__, limit=2)
            print(f"{MARK} end {i}", flush=True)
            log.write(f"{i}\t{case_id}\t{status}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
