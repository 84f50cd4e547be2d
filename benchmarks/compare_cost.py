"""What the comparison of one large output costs: ``kcheck.compare.compare`` on 12.6M elements (NaN, inf, unwritten
elements and a baseline included), per output dtype, on the CPU or the GPU.

    python benchmarks/compare_cost.py [--device cuda] [--n N]

On a GPU a past-2**31-element output is compared in 128 chunks of 2**24; what the comparison does per chunk (its
passes over the data, its transfers to the host) is paid 128 times there.
"""

from __future__ import annotations

import argparse
import time

import torch

from kcheck.compare import Tolerance, compare


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--n", type=int, default=3 * 2**22 + 17)
    args = ap.parse_args()
    gen = torch.Generator(device="cpu").manual_seed(0)
    n = args.n
    e = torch.randn(n, dtype=torch.float64, generator=gen) * 3
    a = e.float().clone()
    a[::1000] += 1e-3
    a[5::7919] = float("nan")
    e[11::104729] = float("nan")
    a[13::50000] = float("inf")
    unwritten = torch.zeros(n, dtype=torch.bool)
    unwritten[::77777] = True
    base = (e + 1e-7).float()
    e, a, unwritten, base = (t.to(args.device) for t in (e, a, unwritten, base))
    for dtype in (torch.float32, torch.float16):
        out, b = a.to(dtype), base.to(dtype)
        compare("o", out, e, Tolerance(1e-5, 1e-5, "t"), unwritten=unwritten, baseline=b)  # warm-up
        if args.device == "cuda":
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        cmp = compare("o", out, e, Tolerance(1e-5, 1e-5, "t"), unwritten=unwritten, baseline=b)
        if args.device == "cuda":
            torch.cuda.synchronize()
        print(f"{args.device} {str(dtype).removeprefix('torch.')}: {n:,} elements, {time.perf_counter() - t0:.3f} s "
              f"({cmp.mismatches} mismatches)")


if __name__ == "__main__":
    main()
