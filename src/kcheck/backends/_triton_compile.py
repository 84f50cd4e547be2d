"""Compile one Triton kernel for a GPU architecture without a GPU, and print its resources as JSON.

    python -m kcheck.backends._triton_compile '{"file": ..., "name": ..., "signature": {...}, "constexprs": {...},
                                                "options": {...}, "arch": 90}'

Run by ``backends._triton.compile_resources`` in a process without TRITON_INTERPRET. Compilation errors that the
interpreter never sees (triton 3.6-3.7's ``loopResult.hasOneUse`` assertion) surface here as a failed compile.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any


def main(job_text: str) -> int:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from .._discover import load_module

    job = json.loads(job_text)
    module = load_module(Path(job["file"]))
    fn = getattr(module, job["name"])
    arch = int(job["arch"])
    kernel = triton.compile(ASTSource(fn=fn, signature=job["signature"], constexprs=job["constexprs"]),
                            target=GPUTarget("cuda", arch, 32), options=job["options"] or None)
    res = ptxas_resources(kernel, job["name"], arch)
    if res is None:
        print("ptxas reported no entry function", file=sys.stderr)
        return 2
    print(json.dumps(dataclasses.asdict(res)))
    return 0


def ptxas_resources(kernel: Any, name: str, arch: int) -> Any:
    """Run Triton's own ptxas with ``-v`` on a compiled kernel's PTX and return its Resources (None if ptxas names
    no entry function). Shared memory is the larger of ptxas's static figure and what the kernel asks at launch."""
    import triton

    from .._resources import parse_ptxas

    ptxas = os.path.join(os.path.dirname(triton.backends.nvidia.__file__), "bin", "ptxas")
    if not os.path.exists(ptxas):
        from triton.backends.nvidia.compiler import get_ptxas  # type: ignore[import-untyped]

        found_ptxas = get_ptxas()
        ptxas = found_ptxas if isinstance(found_ptxas, str) else found_ptxas.path
    text = kernel.asm["ptx"]
    target = next((ln.split()[1] for ln in text.splitlines() if ln.startswith(".target")), f"sm_{arch}")
    with tempfile.TemporaryDirectory() as tmp:  # ptxas refuses -o /dev/null: write the cubin to a scratch file
        ptx = os.path.join(tmp, "k.ptx")
        Path(ptx).write_text(text)
        out = subprocess.run([ptxas, f"-arch={target}", "-v", ptx, "-o", os.path.join(tmp, "k.cubin")],
                             capture_output=True, text=True, check=True)
    found = parse_ptxas(out.stdout + out.stderr)
    if not found:
        return None
    res = found[0]
    res.kernel = name
    res.shared_bytes = max(res.shared_bytes, int(getattr(kernel.metadata, "shared", 0) or 0))
    res.source = f"triton {triton.__version__} ptxas -v"
    return res


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
