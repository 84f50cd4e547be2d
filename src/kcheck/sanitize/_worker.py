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

import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

#: Printed to stdout around each case; compute-sanitizer prints its text records to the same stdout, in order, so
#: records that carry no host backtrace (racecheck's analysis summaries) are tied to the case they fall inside.
MARK = "kcheck-sanitize-case"


def _named(name: str, fn: Callable[[], Any]) -> Callable[[], Any]:
    def runner() -> Any:
        return fn()

    code = runner.__code__.replace(co_name=name)
    if hasattr(code, "co_qualname"):
        code = code.replace(co_qualname=name)
    runner.__code__ = code
    runner.__name__ = runner.__qualname__ = name
    return runner


def _disable_pools() -> None:
    """CuPy's memory pool hides out-of-bounds accesses like PyTorch's caching allocator (env var, set by parent)."""
    if "cupy" in sys.modules:
        sys.modules["cupy"].cuda.set_allocator(None)


def main(argv: list[str]) -> int:
    manifest, path, spec_name, *ids = argv
    from .._device import enable_interpreter_if_no_gpu
    from .._discover import load_module
    from .._spec import Spec, Tensor
    from ..cases import build_matrix, make_args
    from ..cases._inputs import shape_of
    from ..cases._matrix import case_from_id

    enable_interpreter_if_no_gpu()
    module = load_module(Path(path))
    spec = next(v for v in vars(module).values() if isinstance(v, Spec) and v.name == spec_name)
    from .._device import detect
    from .._dtypes import PRECISIONS

    device = detect()
    by_id = {c.id: c for c in build_matrix(spec, device)}
    _disable_pools()
    with open(manifest, "a", buffering=1) as log:
        for i, case_id in enumerate(ids):
            case = by_id.get(case_id) or case_from_id(spec, case_id)  # a probe's case: not in the matrix
            print(f"{MARK} begin {i}", flush=True)
            try:
                args = make_args(spec, case, device.device)
                outs = []
                for t in spec.outputs or ():
                    assert isinstance(t, Tensor)
                    outs.append(
                        torch.empty(
                            shape_of(t.dims, case.sizes),
                            dtype=t.dtype or PRECISIONS[case.precision].storage,
                            device=device.device,
                        )
                    )

                def call(args: list[Any] = args, outs: list[Any] = outs, case: Any = case) -> Any:
                    return spec.kernel(*args, *outs, **case.config_dict)

                _named(f"kcheck_case_{i}", call)()
                if device.is_gpu:
                    torch.cuda.synchronize()
                status = "ok"
            except Exception as exc:
                status = "error: " + (str(exc).strip().splitlines() or [type(exc).__name__])[0]
                traceback.print_exc(limit=2)
            print(f"{MARK} end {i}", flush=True)
            log.write(f"{i}\t{case_id}\t{status}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
