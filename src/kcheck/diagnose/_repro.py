"""The minimal repro: a standalone script, readable without kcheck, that rebuilds the smallest failing case and
fails (exit 1) while the bug is there.

The failing inputs are saved beside it (``torch.save``), so the script replays exactly what failed; it loads them
with ``weights_only=True``, so a crafted inputs file cannot run code (an input such a load refuses, a Custom input's
own class, gets no script). The kernel and the reference are taken from the user's own module, whose path, like
every other value the script spells, is written as a Python literal (repr) or escaped, whatever characters it
holds. Outputs are filled with NaN before the call (and ``torch.empty`` inside the launcher returns NaN), as kcheck
does, so an element the kernel never writes shows.
The check is ``torch.testing.assert_close`` with kcheck's tolerance for that case written out as numbers, plus
the same-precision baseline rule when that is what failed. When what failed is a memory access that kcheck's checks
in Triton's interpreter found (an off-by-one mask reads one element past the end and may not change a value), the
script runs the kernel under the same public context manager, ``kcheck.interpret.checked()``, on a CPU; on a GPU
it says to run it under compute-sanitizer.
"""

from __future__ import annotations

import ast
import io
import math
import subprocess
import sys
import time
from pathlib import Path

import torch

from .._dtypes import PRECISIONS
from .._results import CaseResult
from .._spec import Spec, Tensor
from ..cases import make_args, params_of

TEMPLATE = '''#!/usr/bin/env python3
"""Minimal repro written by `kcheck debug` on {date}.

Spec {doc_spec} from {doc_path}
Case {doc_case_id}
{doc_cause}
Run it from anywhere: python {doc_script_name}   (exit 1 while the bug is there, 0 once it is fixed, 3 if the
kernel or this script raised)
"""

import importlib.util
import os
import sys
from math import inf, nan  # how repr spells an infinite or undefined number in the values below

import torch
from torch.overrides import TorchFunctionMode

HERE = os.path.dirname(os.path.abspath(__file__))


def _raised(kind, value, tb):
    """An exception (the kernel's crash, or this script breaking) exits 3: 1 is kept for "the check failed"."""
    import traceback

    traceback.print_exception(kind, value, tb)
    sys.stderr.flush()
    os._exit(3)


sys.excepthook = _raised
SPEC_FILE = {path!r}
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
if DEVICE == "cpu":
    os.environ.setdefault("TRITON_INTERPRET", "1")  # Triton kernels run in its interpreter without a GPU

spec_module = importlib.util.spec_from_file_location("kernel_under_test", SPEC_FILE)
module = importlib.util.module_from_spec(spec_module)
sys.path.insert(0, os.path.dirname(SPEC_FILE))
spec_module.loader.exec_module(module)
spec = next(v for v in vars(module).values() if getattr(v, "name", None) == {spec!r} and hasattr(v, "reference"))

# the exact inputs of the failing case ({inputs_comment}); plain data only (tensors, numbers,
# strings, lists, dicts): a file that holds anything else (code to run on loading) is refused
saved = torch.load(os.path.join(HERE, {inputs_name!r}), weights_only=True)


def rebuild(x):
    """A strided input is saved as its whole storage with its sizes, strides and offset: rebuild the same view."""
    if isinstance(x, dict) and "storage" in x:
        return torch.as_strided(x["storage"].to(DEVICE), x["size"], x["stride"], x["offset"])
    return x.to(DEVICE) if isinstance(x, torch.Tensor) else x


inputs = [rebuild(x) for x in saved]
config = {config}  # the launch configuration (keyword arguments of the kernel only)
params = {params}  # the case's modes (Spec.params): keyword arguments of the kernel and the reference


class NanEmpty(TorchFunctionMode):
    """torch.empty inside the launcher returns NaN, so an element the kernel never writes shows."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {{}}))
        if func in (torch.empty, torch.empty_like) and out.is_floating_point():
            out.fill_(float("nan"))
        return out


with torch.device(DEVICE):  # as kcheck runs the reference: a table it builds lands beside its inputs
    expected = spec.reference(*[x.double() if isinstance(x, torch.Tensor) and x.is_floating_point() else x
                                for x in inputs], **params)
expected = expected if isinstance(expected, tuple) else (expected,)
failed = False
{call}
outputs = outputs if isinstance(outputs, (tuple, list)) else (outputs,)
if DEVICE == "cuda":
    torch.cuda.synchronize()

TOLERANCES = {tolerances!r}  # (rtol, atol) per output: kcheck's, for this dtype and reduction length
BASELINE = {baseline!r}  # same-precision baseline rule: (factor, floor) per output, or None
NOOP = {noop!r}  # per output, the trivial result it was found identical to, or None
for i, (out, exp) in enumerate(zip(outputs, expected)):
    rtol, atol = TOLERANCES[i]
    try:
        torch.testing.assert_close(out.double(), exp.double().to(out.device), rtol=rtol, atol=atol, equal_nan=True)
    except AssertionError as err:
        print(f"output {{i}}: {{err}}")
        failed = True
    if BASELINE[i] is not None and getattr(spec, "baseline", True) is True:
        factor, floor = BASELINE[i]
        with torch.device(DEVICE):
            base = spec.reference(*inputs, **params)
        base = (base if isinstance(base, tuple) else (base,))[i]
        err_kernel = (out.double() - exp.double()).abs().max().item()
        err_base = (base.double() - exp.double()).abs().max().item()
        if err_kernel > factor * err_base + floor:
            print(f"output {{i}}: error {{err_kernel:.3g}} exceeds {{factor}} x the same-precision baseline's "
                  f"{{err_base:.3g}} (+ {{floor:.3g}})")
            failed = True
    # no-op check: an output identical to a trivial candidate the tolerance cannot tell from the reference
    noop = NOOP[i]
    if noop is not None:
        cand = torch.zeros_like(out) if noop == "zeros" else (
            inputs[int(noop.split()[1])] if noop.startswith("input ") else torch.full_like(out, out.flatten()[0]))
        if torch.equal(out, cand.to(out.dtype)) and not torch.equal(exp.to(out.dtype), cand.to(out.dtype)):
            print(f"output {{i}}: exactly {{noop}}: the kernel did not compute it (kcheck's no-op guard)")
            failed = True
sys.exit(1 if failed else 0)
'''


def write_repro(spec: Spec, spec_file: str, result: CaseResult, out_dir: Path, device: str,
                cause: str = "") -> Path:
    """Write ``repro_<spec>.py`` and its inputs file into ``out_dir``; return the script's path. Raises ValueError
    when the case's configuration or modes hold values the script cannot spell (not Python literals)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    case = result.case
    config = _spelled("config", case.config_dict)
    params = _spelled("params", params_of(spec, case))
    args = make_args(spec, case, device)
    inputs_name = f"repro_{spec.name}.inputs.pt"
    saved = [_saved(a) for a in args]
    torch.save(saved, out_dir / inputs_name)
    _loads_safely(out_dir / inputs_name, saved)
    if spec.outputs is not None:
        shapes = []
        for t in spec.outputs:
            assert isinstance(t, Tensor)
            shape = tuple(case.sizes.get(str(d), d) if isinstance(d, str) else d for d in t.dims)
            dtype = t.dtype or _storage(case.precision)
            fill = "torch.zeros" if t.pattern == "zeros" else "torch.full"
            floating = torch.empty(0, dtype=t.dtype).is_floating_point() if t.dtype is not None else True
            poison = "float('nan'), " if floating else "-1, "  # integer outputs: a value no index takes
            shapes.append(f"{fill}({shape!r}, " + ("" if t.pattern == "zeros" else poison) + f"dtype={dtype}, "
                          "device=DEVICE)")
        run = "spec.kernel(*inputs, *outputs, **params, **config)"
        head = "outputs = [" + ", ".join(shapes) + "]  # poisoned with NaN, as kcheck does\n"
        tail = ""
    else:
        run = "outputs = spec.kernel(*inputs, **params, **config)"
        head = ""
        tail = ""
    findings = [f for f in result.findings if f.tool == "interpreter"]
    if findings:  # what failed is a memory access the values may not show: check the accesses as kcheck did
        f = findings[0]
        call = (f"# kcheck found: {_comment(f.message[:140])}\n#   at {_comment(f'{f.file}:{f.line}')}\n"
                "# Triton's interpreter with kcheck's memory and race checks shows it again; on a GPU, run this\n"
                "# script under compute-sanitizer (memcheck / racecheck) instead.\n"
                "import contextlib\n\n"
                "if DEVICE == \"cpu\":\n    from kcheck.interpret import checked\n\n    access_checks = checked()\n"
                "else:\n    access_checks = contextlib.nullcontext()\n"
                f"{head}with NanEmpty(), access_checks as accesses:\n    {run}{tail}\n"
                "if accesses is not None and accesses.findings:\n"
                "    print(f\"memory/race check: {accesses.findings[0].message}\")\n    failed = True")
    else:
        call = f"{head}with NanEmpty():\n    {run}{tail}"
    tolerances = [(c.tolerance.rtol, c.tolerance.atol) for c in result.comparisons]
    baseline = [(c.baseline.factor, c.baseline.floor) if c.baseline is not None and c.baseline.required else None
                for c in result.comparisons]
    script = out_dir / f"repro_{spec.name}.py"
    path = str(Path(spec_file).resolve())
    script.write_text(TEMPLATE.format(
        date=time.strftime("%Y-%m-%d"), doc_spec=_doc(repr(spec.name)), doc_path=_doc(path),
        doc_case_id=_doc(case.id), doc_cause=_doc(f"Likely cause: {cause}" if cause else ""),
        doc_script_name=_doc(script.name), spec=spec.name, path=path,
        inputs_comment=_comment(f"seed {case.seed}, pattern {case.pattern!r}, sizes {case.sizes}"),
        inputs_name=inputs_name, config=config, params=params, call=call, tolerances=tolerances or [(0.0, 0.0)],
        baseline=baseline or [None], noop=[_noop_of(result, i) for i in range(max(len(result.comparisons), 1))]),
        encoding="utf-8")
    return script


def _spelled(what: str, values: dict[str, object]) -> str:
    """``values`` as the source of a dict literal the script evaluates back to the same values (torch dtypes as
    ``torch.float32``); ValueError for a value that has no such spelling."""
    items = []
    for key, value in values.items():
        if isinstance(value, torch.dtype):
            items.append(f"{key!r}: {value}")
            continue
        try:
            ok = _non_finite(value) or ast.literal_eval(repr(value)) == value
        except (ValueError, SyntaxError):
            ok = False
        if not ok:
            raise ValueError(f"{what} {key}={value!r} is not a Python literal: the script cannot rebuild it")
        items.append(f"{key!r}: {value!r}")
    return "{" + ", ".join(items) + "}"


def _non_finite(value: object) -> bool:
    """A float the script spells ``inf``, ``-inf`` or ``nan``: names it imports from math."""
    return isinstance(value, float) and (math.isnan(value) or math.isinf(value))


def _doc(text: str) -> str:
    """``text`` as it may stand inside the script's triple-quoted docstring and read back as itself: backslashes,
    double quotes and unprintable characters (a newline in a path included) escaped."""
    out = []
    for c in text:
        if c == '"':
            out.append('\\"')
        elif c == "\\" or not c.isprintable():
            out.append(repr(c)[1:-1])
        else:
            out.append(c)
    return "".join(out)


def _comment(text: str) -> str:
    """``text`` on one comment line: a newline (or any unprintable character) in it cannot end the comment."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _saved(a: object) -> object:
    """A tensor as the script will rebuild it: contiguous ones as they are, views with their whole storage."""
    if not isinstance(a, torch.Tensor):
        return a
    if a.is_contiguous() and a.storage_offset() == 0:
        return a.detach().cpu()
    span = a.untyped_storage().nbytes() // a.element_size()
    storage = torch.as_strided(a.detach(), (span,), (1,), 0).cpu().clone()
    return {"storage": storage, "size": tuple(a.size()), "stride": tuple(a.stride()), "offset": a.storage_offset()}


def _loads_safely(file: Path, saved: list[object]) -> None:
    """The script loads its inputs with ``weights_only=True`` (a crafted file cannot run code): raise ValueError,
    naming the inputs, when one of them is an object that such a load refuses (a Custom input's own class)."""
    try:
        torch.load(file, weights_only=True)
    except Exception as exc:
        file.unlink(missing_ok=True)
        refused = []
        for i, value in enumerate(saved):
            buffer = io.BytesIO()
            torch.save(value, buffer)
            buffer.seek(0)
            try:
                torch.load(buffer, weights_only=True)
            except Exception:
                refused.append(f"input {i} ({type(value).__name__})")
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ValueError(f"{', '.join(refused) or 'an input'} cannot be loaded back safely (torch.load with "
                         f"weights_only=True refuses it): {first}") from exc


def _noop_of(result: CaseResult, i: int) -> str | None:
    """'zeros', 'input K' or 'a constant' when output i was caught by the no-op guard."""
    prefix = f"output {i} is exactly "
    if result.noop and result.noop.startswith(prefix):
        what = result.noop[len(prefix):]
        return what.replace(" unchanged", "")
    return None


def _storage(precision: str) -> str:

    return "torch." + str(PRECISIONS[precision].storage).replace("torch.", "")


def run_repro(script: Path, timeout: float = 300.0) -> tuple[int | None, float, str]:
    """Run the script in a fresh interpreter; (exit code or None on timeout, seconds, last lines of output)."""
    script = script.resolve()  # it runs from its own folder: a path relative to ours would not be found there
    t0 = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=timeout,
                              cwd=script.parent)
    except subprocess.TimeoutExpired:
        return None, time.perf_counter() - t0, f"timed out after {timeout:g} s"
    tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-4:])
    return proc.returncode, time.perf_counter() - t0, tail
