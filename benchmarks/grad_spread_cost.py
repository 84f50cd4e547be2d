"""What the gradient's size over other upstream gradients costs (``kcheck.run._grad.upstream_spread``): the float64
reference's forward once and its backward 8 times, asked only where a gradient that sums terms fails. Timed on a
per-channel scale y = x * w (w's gradient sums the rows) and on RMSNorm, beside one float64 backward of the same.

    python benchmarks/grad_spread_cost.py [--device cuda] [--m M] [--n N]
"""

from __future__ import annotations

import argparse
import time

import torch

import kcheck
from kcheck.cases import make_args
from kcheck.run._grad import upstream_spread


def _rmsnorm(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6) * w


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--m", type=int, default=4096)
    ap.add_argument("--n", type=int, default=1024)
    args = ap.parse_args()
    dims = {"M": kcheck.Dim(nominal=args.m, real=()), "N": kcheck.Dim(nominal=args.n, real=())}
    for name, ref in (("scale", lambda x, w: x * w), ("rmsnorm", _rmsnorm)):
        spec = kcheck.Spec(name=name, kernel=ref, reference=ref, dims=dims, dtypes=["fp32"], grad=True,
                           inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", name="w")])
        case = next(c for c in kcheck.matrix(spec, tier="quick", large=False) if c.pattern == "randn")
        inputs = make_args(spec, case, args.device)
        upstream_spread(spec, case, args.device, inputs, [0, 1], [0])  # warm-up
        t0 = time.perf_counter()
        spread = upstream_spread(spec, case, args.device, inputs, [0, 1], [0])
        t_spread = time.perf_counter() - t0
        x, w = (a.double().requires_grad_(True) for a in inputs)
        t0 = time.perf_counter()
        y = ref(x, w)
        torch.autograd.grad(y, [x, w], torch.randn_like(y))
        t_one = time.perf_counter() - t0
        print(f"{args.device} {name} [{args.m}, {args.n}]: upstream_spread {t_spread:.3f} s (one float64 forward and "
              f"backward {t_one:.3f} s); the weight gradient's size {spread[1]:.3g}")


if __name__ == "__main__":
    main()
