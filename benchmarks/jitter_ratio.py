"""The jitter probe's ratio on the held-out zoos' planted bugs: how much a kernel's error changes when every input
moves by a random relative amount up to 2**-10, over the error itself (L2), on randn data (plus ``--mean``) at each
Spec's nominal sizes (clipped to ``--clip``), the first config. Outside kcheck's matrix: the figures that set the
observer's thresholds (``smooth-error`` at most 0.05, ``rounding-noise`` 0.3 or more), from kernels the rules were
not written against. Rows whose relative error is at rounding level did not fail: their ratio says nothing.

    python benchmarks/jitter_ratio.py [FILE ...]                   (default: every held-out module of the classes below)
    python benchmarks/jitter_ratio.py --mean 1e4 tests/zoo_heldout2/hx2_group_norm.py
"""

from __future__ import annotations

import argparse
import glob
import importlib.util
import os
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CLASSES = ("cancellation", "wrong-constant", "index-transposition", "wrong-axis", "low-precision-accumulation",
           "off-by-one-mask")
JITTER = 2.0 ** -10


def _flat(out: Any) -> Any:
    import torch

    outs = out if isinstance(out, (tuple, list)) else (out,)
    return torch.cat([o.detach().double().reshape(-1) for o in outs if isinstance(o, torch.Tensor)])


def ratio(path: str, mean: float, clip: int) -> tuple[str, float, float]:
    import torch

    module_spec = importlib.util.spec_from_file_location(Path(path).stem, path)
    module = importlib.util.module_from_spec(module_spec)  # type: ignore[arg-type]
    module_spec.loader.exec_module(module)  # type: ignore[union-attr]
    spec = module.spec
    sizes = {d: min(v.nominal, clip) for d, v in spec.dims.items()}
    gen = torch.Generator().manual_seed(0)
    ins = [torch.randn([sizes[d] if isinstance(d, str) else d for d in t.dims], generator=gen) + mean
           for t in spec.inputs]  # Tensors only: a Spec with other inputs raises here and is reported so
    moved = [a * (1 + JITTER * (2 * torch.rand(a.shape, generator=gen) - 1)) for a in ins]
    kwargs = {**spec.nominal_params(), **(spec.configs[0] if spec.configs else {})}

    def error(args: list[Any]) -> Any:
        got = _flat(spec.kernel(*[a.clone() for a in args], **kwargs))
        want = _flat(spec.reference(*[a.double() for a in args], **spec.nominal_params()))
        return got - want, want

    (e0, want), (e1, _) = error(ins), error(moved)
    finite = e0.isfinite() & e1.isfinite()
    e0, e1, want = e0[finite], e1[finite], want[finite]
    return module.BUG_CLASS, float((e1 - e0).norm() / e0.norm()), float(e0.norm() / want.norm())


def main() -> int:
    os.environ.setdefault("TRITON_INTERPRET", "1")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*")
    ap.add_argument("--mean", type=float, default=0.0, help="added to the randn inputs (1e4: a large mean)")
    ap.add_argument("--clip", type=int, default=128, help="largest size of a dimension")
    args = ap.parse_args()
    files = args.files or [f for f in sorted(glob.glob(str(ROOT / "tests" / "zoo_heldout*" / "*.py")))
                           if "cuda" not in f and (m := re.search(r'^BUG_CLASS = "([^"]+)"', Path(f).read_text(), re.M))
                           and m.group(1) in CLASSES]
    for f in files:
        try:
            cls, r, rel = ratio(f, args.mean, args.clip)
            print(f"{Path(f).name:45s} {cls:28s} ratio {r:9.3g}   relative error {rel:.2g}", flush=True)
        except Exception as exc:  # a Spec this simple driver cannot build inputs for
            print(f"{Path(f).name:45s} not measured ({type(exc).__name__}: {str(exc)[:80]})", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
