"""The debugger keeps to the Spec's contract: probes stay inside the Dims' constraints, the lint's evidence comes from
the kernels the Spec launches, and a repro of an integer output fails as the case did. Each was a fault a review
found in the debugger (see docs/debugging.md); these tests keep them fixed."""

from __future__ import annotations

import dataclasses
import importlib
import math
import subprocess
import sys
import textwrap
from pathlib import Path

import kcheck
from kcheck._discover import load_module
from kcheck.diagnose import debug, format_diagnosis
from kcheck.diagnose._import_lint import lint_spec
from kcheck.diagnose._repro import write_repro
from kcheck.lint import lint_path

contracts = importlib.import_module("debug_specs.contracts")


def test_size_probes_and_bisection_stay_inside_the_dims_constraints(tmp_path):
    diag = debug(contracts.constrained, budget=60, out_dir=tmp_path)
    sizes = [int(e.label.split("=")[1]) for e in diag.experiments
             if e.axis in ("size", "bisect") and e.label.startswith("N=")]
    assert sizes, format_diagnosis(diag)
    assert all(v % 16 == 0 and v <= 512 for v in sizes), sizes
    assert any(v >= 100 for v in sizes) and any(v < 100 for v in sizes), sizes  # the sweep did cross the bug
    assert not any("outside the contract" in e.detail for e in diag.experiments), format_diagnosis(diag)
    assert diag.top is not None and diag.top.key != "kernel-raises", format_diagnosis(diag)


TWO_KERNELS = '''
import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def used_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)


@triton.jit
def other_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)


def double(x):
    out = torch.empty_like(x)
    used_kernel[(triton.cdiv(x.numel(), 256),)](x, out, x.numel(), BLOCK=256)
    return out


spec = kcheck.Spec(name="double", kernel=double, reference=lambda x: x * 2, inputs=[kcheck.Tensor("N")],
                   dtypes=["fp32"])
'''


def test_lint_evidence_comes_from_the_kernels_the_spec_launches(tmp_path):
    path = tmp_path / "two_kernels.py"
    path.write_text(textwrap.dedent(TWO_KERNELS))
    spec = load_module(path).spec  # type: ignore[attr-defined]
    everything = lint_path(path)
    flagged = {f.kernel for f in everything if f.kind == "triton-pid-stride-int32"}
    assert flagged == {"used_kernel", "other_kernel"}, everything  # both carry the int32 pid * BLOCK
    mine = lint_spec(spec)
    assert {f.kernel for f in mine if f.kind == "triton-pid-stride-int32"} == {"used_kernel"}, mine


def test_a_repro_of_an_integer_output_fails_on_its_own(tmp_path):
    diag = debug(contracts.argmax, budget=60, out_dir=tmp_path)
    assert diag.failed and diag.repro is not None, format_diagnosis(diag)
    proc = subprocess.run([sys.executable, diag.repro], capture_output=True, text=True, cwd=Path(diag.repro).parent)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "output 0" in proc.stdout, proc.stdout


CLAMPED = '''
import math

import torch

import kcheck

spec = kcheck.Spec(name="clamped_double", kernel=lambda x, limit: x.clamp(max=limit) * 2 + 1,
                   reference=lambda x, limit: x.clamp(max=limit) * 2, inputs=[kcheck.Tensor("N")],
                   dims={"N": kcheck.Dim(nominal=64, real=())}, params={"limit": [math.inf]})
'''


def test_a_repro_spells_infinite_numbers(tmp_path):
    """repr(math.inf) is ``inf``: a mode or a tolerance at infinity must read back in the script, not break it."""
    path = tmp_path / "clamped.py"
    path.write_text(CLAMPED)
    spec = load_module(path).spec
    result = kcheck.check(spec, cases="clamped_double[N=64,fp32,randn,limit=inf,seed=0]").cases[0]
    assert not result.ok
    script = write_repro(spec, str(path), result, tmp_path / "out", "cpu")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd="/")
    assert proc.returncode == 1, proc.stdout + proc.stderr  # the mode read back: the case fails as it did
    cmp = result.comparisons[0]
    result.comparisons[0] = dataclasses.replace(cmp, tolerance=dataclasses.replace(cmp.tolerance, atol=math.inf))
    script = write_repro(spec, str(path), result, tmp_path / "out2", "cpu")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd="/")
    assert proc.returncode == 0, proc.stdout + proc.stderr  # an infinite atol passes everything; it does not raise
