"""What the comparison of one large output costs: ``kcheck.compare.compare`` on 12.6M elements (NaN, inf, unwritten
elements and a baseline included), per output dtype, on the CPU or the GPU; and the same with the case's input
handed in, for the band of input values the wrong elements hold (``Comparison.value_band``); the slice figures of a
mismatch mask; and the scan of a randn input for an exact 0.

    python benchmarks/compare_cost.py [--device cuda] [--n N]

On a GPU an output of more than two chunks (2**25 elements) is compared by one Triton kernel (compare/_fused.py);
the chunked route (2**24 elements a chunk, about sixty elementwise passes each) is timed beside it, on the same
data, with the first (compiling) call of each left out. On the CPU only the chunked route runs.
"""

from __future__ import annotations

import argparse
import time
from unittest import mock

import torch

from kcheck.compare import Tolerance, _compare, compare, confined, edge_band, slice_hits


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--n", type=int, default=3 * 2**22 + 17, help="elements (a past-2**31 output: 2147483649)")
    args = ap.parse_args()
    gen = torch.Generator(device=args.device).manual_seed(0)
    n = args.n
    e = torch.randn(n, dtype=torch.float64, generator=gen, device=args.device) * 3
    a = e.float().clone()
    a[::1000] += 1e-3
    a[5::7919] = float("nan")
    e[11::104729] = float("nan")
    a[13::50000] = float("inf")
    unwritten = torch.zeros(n, dtype=torch.bool, device=args.device)
    unwritten[::77777] = True
    base = (e + 1e-7).float()
    routes = {"chunked": False, "fused": True} if args.device == "cuda" else {"chunked": False}
    for dtype in (torch.float32, torch.float16):
        out, b = a.to(dtype), base.to(dtype)
        for route, fused in routes.items():
            with mock.patch.object(_compare, "fused_figures", _compare.fused_figures if fused else _decline):
                compare("o", out, e, Tolerance(1e-5, 1e-5, "t"), unwritten=unwritten, baseline=b)  # warm-up
                if args.device == "cuda":
                    torch.cuda.synchronize()
                t0 = time.perf_counter()
                cmp = compare("o", out, e, Tolerance(1e-5, 1e-5, "t"), unwritten=unwritten, baseline=b)
                if args.device == "cuda":
                    torch.cuda.synchronize()
            print(f"{args.device} {str(dtype).removeprefix('torch.')} {route}: {n:,} elements, "
                  f"{time.perf_counter() - t0:.3f} s ({cmp.mismatches} mismatches, max abs {cmp.max_abs:.4g} at "
                  f"{cmp.max_abs_index}, ulp {cmp.max_ulp:.4g}, rel_l2 {cmp.rel_l2:.6g})")
        # the same comparison handed the case's input (of the output's shape): the band of values the wrong
        # elements hold is looked for too (up to 2**24 elements)
        x = e.to(dtype)
        t0 = time.perf_counter()
        cmp = compare("o", out, e, Tolerance(1e-5, 1e-5, "t"), unwritten=unwritten, baseline=b, inputs=[x])
        if args.device == "cuda":
            torch.cuda.synchronize()
        print(f"{args.device} {str(dtype).removeprefix('torch.')} with the value band: "
              f"{time.perf_counter() - t0:.3f} s (band: {cmp.value_band})")
    # the slice figures every failing comparison takes from its mismatch mask (``confined``, ``edge_band``): a mask
    # of the same size with a band of wrong columns at the start of each 1000-element row, as a boundary off by one
    mask = torch.zeros(n // 1000, 1000, dtype=torch.bool, device=args.device)
    mask[:, :5] = True
    for name, fn in (("slice_hits", lambda: slice_hits(mask)), ("confined", lambda: confined(mask)),
                     ("edge_band", lambda: edge_band(mask))):
        fn()
        t0 = time.perf_counter()
        got = fn()
        if args.device == "cuda":
            torch.cuda.synchronize()
        shown = got if name != "slice_hits" else len(got)
        print(f"{args.device} {name} on a {tuple(mask.shape)} mask: {time.perf_counter() - t0:.4f} s ({shown})")
    # a randn case's inputs looked at for an exact 0 (``CaseResult.zero_inputs``): one ``all`` per floating input
    x = e.float()
    bool(x.all())
    t0 = time.perf_counter()
    held = not bool(x.all())
    if args.device == "cuda":
        torch.cuda.synchronize()
    print(f"{args.device} exact-zero scan of a {n:,}-element fp32 input: {time.perf_counter() - t0:.4f} s ({held})")


def _decline(*args: object, **kwargs: object) -> None:
    return None


if __name__ == "__main__":
    main()
