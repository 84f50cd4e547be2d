"""Validate gradient checks (``Spec(grad=True)``) on a GPU: usage training_validate.py OUT_DIR.

1. examples/train_rmsnorm.py (Triton forward and backward behind an autograd Function) passes every case of the
   default tier, recognized as Triton; prints its case counts, time, and the worst gradient error as a fraction
   of its tolerance;
2. the planted backward bug tests/zoo_training/rmsnorm_dw_one_program.py fails at the nominal case in
   ``grad of input 1 (weight)`` only (dx and the forward right), with the case and where the errors lie; the same
   for examples/train_cross_entropy.py and tests/zoo_training/cross_entropy_ignored_rows.py (the logits' gradient,
   on the ignored rows) and examples/train_rope.py and tests/zoo_training/rope_backward_sign.py (the gradient of x);
3. a gradient buffer the backward leaves partly unwritten is reported as unwritten on this device (the backward
   runs on autograd's device thread on a GPU);
4. gradients of a deterministic backward are bitwise identical across repeats;
5. modes, inputs: every value of the cross-entropy example's modes (``params``: label_smoothing, ignore_index)
   ran and passed; a ``Custom`` input written the natural way (drawn with ``ctx.generator``, moved with
   ``.to(ctx.device)``) and with the ``ctx.randint``/``ctx.randn``/``ctx.mask`` helpers builds the same values on
   the CPU and on this device, and its Spec passes here; a boolean mask (``Tensor(dtype=torch.bool,
   density=0.3)``) has its density on this device, its zeros/ones/constant patterns are all-False, all-True and
   alternating whole rows, a masked sum passes and a kernel ignoring the mask fails where it is not all True;
6. an explicit backward launcher (``Spec(backward=...)``): RMSNorm's Triton forward and backward launchers,
   called directly (no autograd), under the autograd Spec's name (so the same inputs and upstream gradients),
   give every case of the quick tier the verdict and the gradient errors the autograd Spec gets, as a Triton Spec.

Writes OUT_DIR/training_validation.md and OUT_DIR/*.txt; exits non-zero when an expectation fails. Without a GPU it
says so and runs the same expectations on the quick tier in Triton's interpreter.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "examples"), str(ROOT / "tests")]

import torch  # noqa: E402

GPU = torch.cuda.is_available()
if not GPU:
    os.environ.setdefault("TRITON_INTERPRET", "1")

import kcheck  # noqa: E402
from kcheck import Status  # noqa: E402


def main() -> int:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("OUT", "training-validation"))
    out.mkdir(parents=True, exist_ok=True)
    tier = "default" if GPU else "quick"
    lines = [f"# Gradient checks on {'the GPU: ' + torch.cuda.get_device_name() if GPU else 'the CPU (no GPU)'}",
             f"torch {torch.__version__}, tier {tier}", ""]
    failures: list[str] = []
    if not GPU:
        print("no GPU: running the CPU subset (quick tier, Triton's interpreter)")

    import train_rmsnorm
    from zoo_training import rmsnorm_dw_one_program as zoo

    # 1. the example passes
    t0 = time.perf_counter()
    report = kcheck.check(train_rmsnorm.spec, tier=tier)
    seconds = time.perf_counter() - t0
    (out / "train_rmsnorm.txt").write_text(kcheck.format_report(report))
    sr = report.specs[0]
    counts = {s.value: sr.count(s) for s in Status if sr.count(s)}
    worst, worst_at, forgiven = 0.0, "", 0
    for c in report.cases:
        for cmp in c.comparisons:
            if not (cmp.output.startswith("grad of") and cmp.numel and cmp.tolerance.atol > 0):
                continue
            if cmp.baseline is not None and cmp.baseline.forgave:  # ill-conditioned: the framework fails too
                forgiven += 1
                continue
            ratio = cmp.max_abs / cmp.tolerance.atol
            if ratio > worst:
                worst, worst_at = ratio, f"{c.id} {cmp.output}"
    lines += [f"- train_rmsnorm: framework {sr.framework}, {counts}, {seconds:.1f} s; largest gradient max|err| "
              f"{worst:.3g} x atol (each element's bound is atol + rtol*|expected|) ({worst_at}); {forgiven} "
              "gradients of ill-conditioned cases forgiven (the framework's own same-precision gradient fails there "
              "too)"]
    if not report.passed or sr.framework != "triton" or sr.count(Status.PASSED) < 5:
        failures.append(f"train_rmsnorm did not pass as a Triton spec: {counts}, framework {sr.framework}")

    # 2. the planted bug fails in the weight gradient only
    case = "rmsnorm_dw_one_program[M=64,N=256,fp32,randn,seed=0]"
    res = kcheck.check(zoo.spec, cases=case).cases[0]
    text = kcheck.format_case(res)
    (out / "zoo_rmsnorm_dw_one_program.txt").write_text(text)
    bad = sorted(c.output for c in res.comparisons if not c.passed)
    lines += [f"- planted dw bug at {case}: {res.status.value}, failing {bad}"]
    if res.status is not Status.FAILED or bad != ["grad of input 1 (weight)"] or "Where:" not in text:
        failures.append(f"planted dw bug: {res.status.value}, failing {bad}")

    # the cross-entropy example passes; its planted bug fails on the ignored rows only
    import train_cross_entropy
    from zoo_training import cross_entropy_ignored_rows as ce_zoo

    t0 = time.perf_counter()
    ce = kcheck.check(train_cross_entropy.spec, tier=tier)
    (out / "train_cross_entropy.txt").write_text(kcheck.format_report(ce))
    ce_sr = ce.specs[0]
    ce_counts = {s.value: ce_sr.count(s) for s in Status if ce_sr.count(s)}
    lines += [f"- train_cross_entropy: framework {ce_sr.framework}, {ce_counts}, {time.perf_counter() - t0:.1f} s"]
    if not ce.passed or ce_sr.framework != "triton":
        failures.append(f"train_cross_entropy did not pass as a Triton spec: {ce_counts}")
    case = "cross_entropy_ignored_rows[T=64,V=512,fp32,randn,seed=0]"
    res = kcheck.check(ce_zoo.spec, cases=case).cases[0]
    text = kcheck.format_case(res)
    (out / "zoo_cross_entropy_ignored_rows.txt").write_text(text)
    bad = sorted(c.output for c in res.comparisons if not c.passed)
    where = next((c.location.text for c in res.comparisons if not c.passed), "")
    lines += [f"- planted ignored-rows bug at {case}: {res.status.value}, failing {bad}, where: {where}"]
    if res.status is not Status.FAILED or bad != ["grad of input 0 (logits)"]:
        failures.append(f"planted ignored-rows bug: {res.status.value}, failing {bad}")

    # the RoPE example passes; its planted backward sign error fails in the gradient of x
    import train_rope
    from zoo_training import rope_backward_sign as rope_zoo

    t0 = time.perf_counter()
    rp = kcheck.check(train_rope.spec, tier=tier)
    (out / "train_rope.txt").write_text(kcheck.format_report(rp))
    rp_sr = rp.specs[0]
    rp_counts = {s.value: rp_sr.count(s) for s in Status if rp_sr.count(s)}
    lines += [f"- train_rope: framework {rp_sr.framework}, {rp_counts}, {time.perf_counter() - t0:.1f} s"]
    if not rp.passed or rp_sr.framework != "triton":
        failures.append(f"train_rope did not pass as a Triton spec: {rp_counts}")
    case = "rope_backward_sign[T=32,H=3,D=64,fp32,randn,seed=0]"
    res = kcheck.check(rope_zoo.spec, cases=case).cases[0]
    (out / "zoo_rope_backward_sign.txt").write_text(kcheck.format_case(res))
    bad = sorted(c.output for c in res.comparisons if not c.passed)
    lines += [f"- planted RoPE backward sign error at {case}: {res.status.value}, failing {bad}"]
    if res.status is not Status.FAILED or bad != ["grad of input 0 (x)"]:
        failures.append(f"planted RoPE sign error: {res.status.value}, failing {bad}")

    # 3. poisoned gradient buffers on this device, 4. bitwise-identical repeats
    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):  # type: ignore[override]
            return x * 2

        @staticmethod
        def backward(ctx, g):  # type: ignore[override]
            dx = torch.empty_like(g)
            dx[:, :-1] = 2 * g[:, :-1]  # the last column is never written
            return dx

    spec = kcheck.Spec(name="scale_unwritten", kernel=Scale.apply, reference=lambda x: 2 * x, grad=True,
                       inputs=[kcheck.Tensor("M", "N")], dims={"M": kcheck.Dim(nominal=8, real=()),
                                                               "N": kcheck.Dim(nominal=64, real=())})
    res = kcheck.check(spec, cases="scale_unwritten[M=8,N=64,fp32,randn,seed=0]").cases[0]
    grad = next(c for c in res.comparisons if c.output == "grad of input 0")
    lines += [f"- unwritten gradient column: {grad.unwritten} unwritten elements reported (want 8)"]
    if grad.unwritten != 8:
        failures.append(f"unwritten gradient: {grad.unwritten} reported, want 8")
    repeated = [c for c in report.cases if c.case.repeats and c.determinism is not None]
    differing = sum(c.determinism.differing for c in repeated if c.determinism is not None)
    lines += [f"- determinism: {len(repeated)} train_rmsnorm cases repeated, {differing} elements differing (want 0)"]
    if not repeated or differing:
        failures.append(f"determinism: {len(repeated)} repeated cases, {differing} differing elements")

    _modes_and_inputs(ce, tier, lines, failures)
    _explicit_backward(lines, failures)

    lines += ["", "FAILED: " + "; ".join(failures) if failures else "all gradient expectations met"]
    summary = "\n".join(lines) + "\n"
    (out / "training_validation.md").write_text(summary)
    print(summary)
    return 1 if failures else 0


def _modes_and_inputs(ce: kcheck.Report, tier: str, lines: list[str], failures: list[str]) -> None:
    """Section 5 of the module docstring."""
    import train_cross_entropy

    from kcheck.cases import make_args

    # modes: every declared value ran and passed
    for name, values in train_cross_entropy.spec.params.items():
        for v in values:
            ran = [c for c in ce.cases if c.case.params_dict.get(name) == v and c.status is not Status.SKIPPED]
            ok = [c for c in ran if c.status is Status.PASSED]
            lines.append(f"- mode {name}={v!r}: {len(ok)} of {len(ran)} cases passed")
            if not ran or len(ok) != len(ran):
                failures.append(f"mode {name}={v!r}: {len(ok)} of {len(ran)} cases passed")

    # a Custom written the natural way: the same values on the CPU and on this device
    def labels(ctx: kcheck.CaseContext) -> tuple[torch.Tensor, ...]:
        T, V = ctx.dims["T"], ctx.dims["V"]
        natural = torch.randint(0, V, (T,), generator=ctx.generator).to(ctx.device)
        return natural, ctx.randint(0, V, (T,)), ctx.randn(T, 4), ctx.mask(T, density=0.25)

    def pick(y: tuple[torch.Tensor, ...], x: torch.Tensor) -> torch.Tensor:
        return x.gather(1, y[0][:, None]).squeeze(1) * 2 + y[2].sum(-1) * y[3]

    custom = kcheck.Spec(name="custom_natural", kernel=pick, reference=pick,
                         inputs=[kcheck.Custom(labels, name="labels"), kcheck.Tensor("T", "V", name="x")],
                         dims={"T": kcheck.Dim(nominal=64, real=()), "V": kcheck.Dim(nominal=100, real=(), min=1)})
    device = "cuda" if GPU else "cpu"
    case = next(c for c in kcheck.matrix(custom) if c.skip is None)
    here = make_args(custom, case, device)[0]
    cpu = make_args(custom, case, "cpu")[0]
    same = all(torch.equal(a.cpu(), b) for a, b in zip(here, cpu, strict=True))
    on_device = all(t.device.type == device for t in here)
    report = kcheck.check(custom, tier=tier)
    counts = {s.value: report.specs[0].count(s) for s in Status if report.specs[0].count(s)}
    lines.append(f"- Custom written the natural way: same values on {device} and the CPU: {same}; on {device}: "
                 f"{on_device}; its Spec: {counts}")
    if not (same and on_device and report.passed):
        failures.append(f"Custom natural way: same={same}, on device={on_device}, {counts}")

    # boolean masks
    def masked_sum(x: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
        return torch.where(m, x, torch.zeros((), dtype=x.dtype, device=x.device)).sum(-1)

    def mask_spec(kernel: object) -> kcheck.Spec:
        return kcheck.Spec(name="masked_sum", kernel=kernel, reference=masked_sum, reduce=["N"],  # type: ignore
                           inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("M", "N", dtype=torch.bool, density=0.3)],
                           dims={"M": kcheck.Dim(nominal=256, real=()), "N": kcheck.Dim(nominal=512, real=())})

    spec = mask_spec(masked_sum)
    base = next(c for c in kcheck.matrix(spec) if c.axis == "size" and c.skip is None)
    density = make_args(spec, base, device)[1].float().mean().item()
    extremes = {}
    for pattern in ("zeros", "ones", "constant"):
        m = make_args(spec, dataclasses.replace(base, pattern=pattern), device)[1]
        extremes[pattern] = (int(m.all(-1).sum()), int((~m.any(-1)).sum()))  # rows all True, rows all False
    good = kcheck.check(spec, tier=tier)
    bad = kcheck.check(mask_spec(lambda x, m: x.sum(-1)), tier="quick", dtypes=["fp32"])
    bad_failed = sorted({c.case.pattern for c in bad.cases if c.status is Status.FAILED})
    lines.append(f"- bool mask: density {density:.3f} (declared 0.3) on {device}; rows (all True, all False) per "
                 f"pattern {extremes}; masked sum passed: {good.passed}; a kernel ignoring the mask fails on "
                 f"patterns {bad_failed}")
    rows = base.sizes["M"]
    if not (abs(density - 0.3) < 0.02 and extremes["zeros"] == (0, rows) and extremes["ones"] == (rows, 0)
            and extremes["constant"] == (rows // 2, rows - rows // 2) and good.passed
            and "randn" in bad_failed and "ones" not in bad_failed):
        failures.append(f"bool masks: density {density:.3f}, extremes {extremes}, passed {good.passed}, "
                        f"ignoring kernel fails on {bad_failed}")


def _explicit_backward(lines: list[str], failures: list[str]) -> None:
    """Section 6 of the module docstring."""
    import train_rmsnorm

    rmsnorm_forward, rmsnorm_backward = train_rmsnorm.rmsnorm_forward, train_rmsnorm.rmsnorm_backward

    def forward(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        return rmsnorm_forward(x, w)[0]

    def backward(x: torch.Tensor, w: torch.Tensor, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return rmsnorm_backward(g, x, w, rmsnorm_forward(x, w)[1])

    auto = train_rmsnorm.spec  # the same name: the same inputs and upstream gradients per case
    spec = kcheck.Spec(name=auto.name, kernel=forward, reference=auto.reference, backward=backward,
                       inputs=auto.inputs, dims=auto.dims, reduce=auto.reduce)
    t0 = time.perf_counter()
    report = kcheck.check(spec, tier="quick")
    seconds = time.perf_counter() - t0
    by_autograd = {c.id: c for c in kcheck.check(auto, tier="quick").cases}
    sr = report.specs[0]
    counts = {s.value: sr.count(s) for s in Status if sr.count(s)}
    graded, differ = 0, []
    for c in report.cases:
        grads = {g.output: g.max_abs for g in c.comparisons if g.output.startswith("grad of")}
        other = by_autograd.get(c.id)
        graded += bool(grads)
        if other is None or other.status is not c.status or grads != {
                g.output: g.max_abs for g in other.comparisons if g.output.startswith("grad of")}:
            differ.append(c.id)
    lines.append(f"- explicit backward launcher (rmsnorm): framework {sr.framework}, {counts}, {graded} cases with "
                 f"gradients compared, {len(differ)} cases whose verdict or gradient errors differ from the "
                 f"autograd Spec's (want 0), {seconds:.1f} s")
    if sr.framework != "triton" or graded < 5 or differ:
        failures.append(f"explicit backward: {counts}, framework {sr.framework}, {graded} cases with gradients, "
                        f"differing from autograd: {differ[:3]}")


if __name__ == "__main__":
    sys.exit(main())
