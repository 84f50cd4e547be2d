"""Problems and candidates: what is evaluated, whatever way it was declared.

A *problem* gives fresh inputs for a seed, the reference (in the problem's precision and in float64), and the
shape variants on which a candidate must be right as well. Two ways to declare one:

- the way KernelBench-style suites do (https://github.com/ScalingIntelligence/KernelBench): a module with
  ``class Model(nn.Module)``, ``get_inputs()`` and ``get_init_inputs()``; the candidate module defines ``ModelNew``
  (KernelBench's name) or ``Model``, built with the same init inputs and the same seed;
- a kcheck ``Spec``: inputs come from its case matrix (the nominal shape for the trials, every other shape of the
  matrix as a variant); the candidate module defines ``ModelNew``/``Model`` (built without arguments), a function
  ``kernel``, or a function with the name of the Spec's kernel.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import hashlib
import importlib.util
import inspect
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import torch

from .._check import matrix
from .._errors import SpecError
from .._spec import Spec
from ..cases import call_reference, make_args, params_of, upcast

Inputs = list[Any]


@dataclass
class Variant:
    """Inputs of another shape than the benchmark's: ``label`` says which sizes changed."""

    label: str
    make: Callable[[int], Inputs]


@dataclass
class Problem:
    name: str
    device: str
    make_inputs: Callable[[int], Inputs]  # seed -> a fresh input set of the benchmark's shape
    reference: Callable[..., Any]  # in the problem's own precision
    reference64: Callable[..., Any] | None  # the same computation in float64 (None: not available)
    variants: Callable[[Inputs], list[Variant]]  # shape variants built from one input set
    init_inputs: list[Any] = field(default_factory=list)
    reference_model: torch.nn.Module | None = None
    spec: Spec | None = None
    lowered: dict[torch.dtype, Callable[..., Any]] = field(default_factory=dict)
    keywords: dict[str, Any] = field(default_factory=dict)  # a Spec's modes (nominal values): the candidate's too

    def reference_at(self, dtype: torch.dtype, args: Inputs) -> Any:
        """The reference computed in ``dtype`` (floating inputs and, for a Model, its parameters cast to it)."""
        cast = [a.to(dtype) if isinstance(a, torch.Tensor) and a.is_floating_point() else a for a in args]
        if self.reference_model is not None:
            if dtype not in self.lowered:
                model = copy.deepcopy(self.reference_model).to(dtype)
                self.lowered[dtype] = model
            with torch.no_grad():
                return self.lowered[dtype](*cast)
        return self.reference(*cast)


@dataclass
class Candidate:
    call: Callable[..., Any]
    parameters: list[torch.Tensor]  # parameters and buffers: an output may not be one of them


def load_module(path: str | Path, argument: str) -> ModuleType:
    """Import a Python file under a name of its own (the file's folder goes on sys.path for its siblings)."""
    p = Path(path)
    if not p.is_file() or p.suffix != ".py":
        raise SpecError(argument, str(path), "give the path of an existing .py file")
    digest = hashlib.blake2b(str(p.resolve()).encode(), digest_size=4).hexdigest()
    name = f"kcheck_eval_{p.stem.replace('-', '_')}_{digest}"
    spec = importlib.util.spec_from_file_location(name, p)
    if spec is None or spec.loader is None:
        raise SpecError(argument, str(path), "give a Python file that can be imported")
    module = importlib.util.module_from_spec(spec)
    folder = str(p.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def _to(x: Any, device: str) -> Any:
    return x.to(device) if isinstance(x, torch.Tensor) else x


def _upcast(x: Any) -> Any:
    return x.to(torch.float64, copy=True) if isinstance(x, torch.Tensor) and x.is_floating_point() else x


def _seeded(seed: int) -> None:
    torch.manual_seed(seed)


def problem_from_module(module: ModuleType, device: str, *, seeds: int, trials: int) -> Problem:
    """The problem a reference module declares (KernelBench style or a kcheck Spec)."""
    name = Path(getattr(module, "__file__", "reference")).stem
    if isinstance(getattr(module, "Model", None), type) and callable(getattr(module, "get_inputs", None)):
        return _kernelbench(module, name, device)
    specs = [v for v in vars(module).values() if isinstance(v, Spec)]
    if len(specs) == 1:
        return problem_from_spec(specs[0], device, seeds=seeds, trials=trials)
    if len(specs) > 1:
        raise SpecError("reference", name, f"the module holds {len(specs)} Specs ({', '.join(s.name for s in specs)})"
                        "; give a file with one")
    raise SpecError("reference", name, "define class Model(nn.Module) with get_inputs() and get_init_inputs() "
                    "(the KernelBench convention), or one module-level kcheck.Spec")


def _kernelbench(module: ModuleType, name: str, device: str) -> Problem:
    get_init = getattr(module, "get_init_inputs", None)
    _seeded(0)
    init = list(get_init()) if callable(get_init) else []
    _seeded(0)
    model = module.Model(*init).to(device).eval()
    try:
        model64: torch.nn.Module | None = copy.deepcopy(model).double()
    except Exception:
        model64 = None

    def make_inputs(seed: int) -> Inputs:
        _seeded(seed)
        return [_to(x, device) for x in module.get_inputs()]

    def ref(*args: Any) -> Any:
        with torch.no_grad():
            return model(*args)

    def ref64(*args: Any) -> Any:
        assert model64 is not None
        with torch.no_grad():
            return model64(*[_upcast(a) for a in args])

    return Problem(name, device, make_inputs, ref, ref64 if model64 is not None else None, shape_variants,
                   init_inputs=init, reference_model=model)


def _like(template: torch.Tensor, shape: tuple[int, ...], gen: torch.Generator) -> torch.Tensor:
    """A random tensor of ``shape`` drawn like ``template``'s values (uniform over its range when it holds no
    negative value, else normal with its mean and spread; integers uniform over its range)."""
    dev = template.device
    if template.is_floating_point():
        t = template.detach().to(torch.float64)
        lo, hi = (float(t.min()), float(t.max())) if t.numel() else (0.0, 1.0)
        if lo >= 0:
            x = torch.rand(shape, generator=gen, dtype=torch.float64) * (hi - lo) + lo
        else:
            std = float(t.std()) if t.numel() > 1 else 1.0
            x = torch.randn(shape, generator=gen, dtype=torch.float64) * std + float(t.mean())
        return x.to(device=dev, dtype=template.dtype)
    if template.dtype == torch.bool:
        return (torch.rand(shape, generator=gen) < 0.5).to(dev)
    lo_i, hi_i = (int(template.min()), int(template.max())) if template.numel() else (0, 1)
    return torch.randint(lo_i, hi_i + 1, shape, generator=gen, dtype=template.dtype).to(dev)


def shape_variants(args: Inputs, limit: int = 4) -> list[Variant]:
    """Shapes other than the benchmark's, built from one input set (the caller keeps those the reference accepts).

    A size that appears in several inputs is read as one dimension (a matmul's K in both operands), so each
    variant changes every occurrence of one size together, to a ragged smaller size (v // 2 + 1: past a power of
    two, off any tile boundary); then the leading dimension alone (a batch), where sizes coincide by chance."""
    tensors = [(i, a) for i, a in enumerate(args) if isinstance(a, torch.Tensor) and a.dim() > 0]
    sizes: list[int] = []
    for _, t in tensors:
        for s in t.shape:
            if s > 2 and s not in sizes:
                sizes.append(s)
    plans: list[tuple[str, Callable[[int, int], int]]] = []

    def every(old: int, new: int) -> Callable[[int, int], int]:
        return lambda dim, size: new if size == old else size

    def leading(old: int, new: int) -> Callable[[int, int], int]:
        return lambda dim, size: new if dim == 0 and size == old else size

    for s in sizes:
        plans.append((f"every size {s} -> {s // 2 + 1}", every(s, s // 2 + 1)))
    lead = [t.shape[0] for _, t in tensors]
    if lead and lead[0] > 2:
        plans.append((f"leading size {lead[0]} -> {lead[0] // 2 + 1}", leading(lead[0], lead[0] // 2 + 1)))
    out: list[Variant] = []
    shapes_seen = {tuple(tuple(t.shape) for _, t in tensors)}
    for label, rule in plans:
        shapes = tuple(tuple(rule(d, s) for d, s in enumerate(t.shape)) for _, t in tensors)
        if shapes in shapes_seen or len(out) > limit:
            continue
        shapes_seen.add(shapes)
        def make(seed: int, rule: Callable[[int, int], int] = rule) -> Inputs:
            gen = torch.Generator().manual_seed(seed)
            new_args = list(args)
            for i, t in tensors:
                shape = tuple(rule(d, s) for d, s in enumerate(t.shape))
                new_args[i] = _like(t, shape, gen)
            return new_args
        out.append(Variant(label, make))
    return out


def problem_from_spec(spec: Spec, device: str, *, seeds: int, trials: int, tier: str = "quick") -> Problem:
    """A kcheck Spec as a problem: the nominal case's shape for the trials, the matrix's other shapes as variants
    (fp32 when the Spec allows it, else its first precision)."""

    if spec.outputs:
        raise SpecError("reference", spec.name, "a Spec with outputs= (the kernel writes buffers it is given) cannot "
                        "be evaluated as a candidate that returns its result; declare the result as returned")
    precisions = [str(p) for p in spec.dtypes] if spec.dtypes else ["fp32"]
    prec = "fp32" if "fp32" in precisions else precisions[0]
    cases = [c for c in matrix(spec, tier=tier, dtypes=[prec], patterns=["randn"], seeds=1, large=False)
             if c.skip is None]
    if not cases:
        raise SpecError("reference", spec.name, "its case matrix holds no case this machine can run")
    nominal = cases[0]
    seen: set[tuple[Any, str]] = {(nominal.dims, nominal.layout)}
    others = []
    for c in cases[1:]:
        if (c.dims, c.layout) not in seen:
            seen.add((c.dims, c.layout))
            others.append(c)

    def make_inputs(seed: int) -> Inputs:
        return make_args(spec, dataclasses.replace(nominal, seed=seed), device)

    def variants(_: Inputs) -> list[Variant]:
        def maker(case: Any) -> Callable[[int], Inputs]:
            return lambda seed: make_args(spec, dataclasses.replace(case, seed=seed), device)
        return [Variant(c.id.split("[", 1)[1].rstrip("]"), maker(c)) for c in others]

    def reference(*args: Any) -> Any:
        return call_reference(spec.reference, spec, nominal, args, device)

    def ref64(*args: Any) -> Any:
        return call_reference(spec.reference, spec, nominal, upcast(args), device)

    return Problem(spec.name, device, make_inputs, reference, ref64, variants, spec=spec,
                   keywords=params_of(spec, nominal))


def candidate_from_module(module: ModuleType, problem: Problem, device: str) -> Candidate:
    """The callable a candidate module defines for ``problem`` (see the module docstring)."""
    cls = getattr(module, "ModelNew", None) or getattr(module, "Model", None)
    if isinstance(cls, type):
        _seeded(0)
        model = cls(*problem.init_inputs)
        if isinstance(model, torch.nn.Module):
            model = model.to(device).eval()
            _share_reference_weights(model, problem.reference_model)
            params = [*model.parameters(), *model.buffers()]
        else:
            params = []

        def call(*args: Any) -> Any:
            with torch.no_grad():
                return model(*args, **problem.keywords)
        return Candidate(call, params)
    names = ["kernel"] + ([getattr(problem.spec.kernel, "__name__", "")] if problem.spec is not None else [])
    for n in names:
        fn = getattr(module, n, None) if n else None
        if callable(fn) and not inspect.isclass(fn):
            return Candidate(functools.partial(fn, **problem.keywords) if problem.keywords else fn, [])
    raise SpecError("candidate", getattr(module, "__file__", "candidate"),
                    "define class ModelNew(nn.Module) (or Model), or a function named "
                    + " or ".join(repr(n) for n in names if n))


def _share_reference_weights(model: torch.nn.Module, reference: torch.nn.Module | None) -> None:
    """Give the candidate the reference's parameter values where names and shapes agree (KernelBench seeds both
    constructors alike; copying also covers a candidate that builds its layers in another order)."""
    if reference is None:
        return
    mine = model.state_dict()
    theirs = {k: v for k, v in reference.state_dict().items() if k in mine and mine[k].shape == v.shape}
    if theirs:
        model.load_state_dict(theirs, strict=False)


def flat_outputs(out: Any) -> list[Any]:
    return list(out) if isinstance(out, (tuple, list)) else [out]


def tensors_of(args: Sequence[Any]) -> list[torch.Tensor]:
    return [a for a in args if isinstance(a, torch.Tensor)]
