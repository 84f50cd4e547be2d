import math

import pytest
import torch

from kcheck.compare import EdgeBand, Tolerance, compare, edge_band, locate, noop_guard
from kcheck.compare import _compare as compare_module

TOL = Tolerance(1e-5, 1e-6, "test")


def test_identical_outputs_pass_with_zero_error():
    x = torch.randn(8, 8)
    cmp = compare("out", x, x.double(), TOL)
    assert cmp.passed and cmp.mismatches == 0 and cmp.max_abs == 0 and cmp.rel_l2 == 0


def test_metrics_name_the_worst_element():
    e = torch.ones(4, 5, dtype=torch.float64)
    a = e.float().clone()
    a[2, 3] = 1.5
    cmp = compare("out", a, e, TOL)
    assert not cmp.passed
    assert (cmp.mismatches, cmp.max_abs, cmp.max_abs_index) == (1, 0.5, (2, 3))
    assert cmp.max_rel == 0.5 and cmp.max_rel_index == (2, 3)
    assert cmp.rel_l2 == pytest.approx(0.5 / math.sqrt(20))
    assert cmp.max_ulp == pytest.approx(0.5 / 2**-23)
    assert cmp.first[0].index == (2, 3) and cmp.first[0].actual == 1.5 and cmp.first[0].expected == 1.0


def test_nan_must_sit_where_the_reference_has_it():
    e = torch.tensor([1.0, float("nan"), 3.0], dtype=torch.float64)
    assert compare("o", e.float(), e, TOL).passed
    a = torch.tensor([float("nan"), 2.0, 3.0])
    cmp = compare("o", a, e, TOL)
    assert cmp.mismatches == 2 and cmp.nan_mismatches == 2


def test_overflow_of_the_output_dtype_is_expected_as_infinity():
    e = torch.tensor([1e6, -1e6, 1.0], dtype=torch.float64)  # past fp16's 65504
    a = torch.tensor([float("inf"), float("-inf"), 1.0], dtype=torch.float16)
    assert compare("o", a, e, Tolerance(1e-2, 1e-3, "t")).passed
    a[1] = float("inf")
    cmp = compare("o", a, e, Tolerance(1e-2, 1e-3, "t"))
    assert cmp.inf_mismatches == 1 and not cmp.passed


def test_unwritten_elements_fail_even_when_their_value_would_pass():
    e = torch.zeros(6, dtype=torch.float64)
    a = torch.zeros(6)
    mask = torch.tensor([False] * 5 + [True])
    cmp = compare("o", a, e, TOL, unwritten=mask)
    assert not cmp.passed and cmp.unwritten == 1 and cmp.mismatches == 1


def test_chunked_comparison_matches_whole(monkeypatch):
    torch.manual_seed(0)
    e = torch.randn(37, 41, dtype=torch.float64)
    a = (e + 1e-3 * torch.randn_like(e)).float()
    whole = compare("o", a, e, TOL)
    monkeypatch.setattr(compare_module, "_CHUNK", 100)
    chunked = compare("o", a, e, TOL)
    for field in ("mismatches", "max_abs", "max_abs_index", "max_rel_index", "max_ulp"):
        assert getattr(whole, field) == getattr(chunked, field)
    assert whole.rel_l2 == pytest.approx(chunked.rel_l2)
    assert [m.index for m in whole.first] == [m.index for m in chunked.first]


def test_chunked_figures_equal_their_plain_definitions_with_nan_inf_unwritten_and_a_baseline(monkeypatch):
    """The per-chunk figures (computed once per term and sent to the host in one transfer) against their
    definitions over the whole tensor: counts, the worst elements, rel_l2, ULPs and the baseline's figures."""
    torch.manual_seed(1)
    n = 1000
    e = torch.randn(n, dtype=torch.float64) * 3
    e[[5, 500]] = float("nan")
    e[[7, 600]] = float("inf")
    e[[9, 700]] = 1e6  # past fp16: expected as inf
    a = e.clone()
    a[::97] += 0.01
    a[[11, 612]] = float("nan")
    a[[13, 800]] = -float("inf")
    unwritten = torch.zeros(n, dtype=torch.bool)
    unwritten[[17, 901]] = True
    base = e + 1e-3
    tol = Tolerance(1e-3, 1e-3, "t")
    monkeypatch.setattr(compare_module, "_CHUNK", 64)
    for dtype in (torch.float32, torch.float16):
        out, b = a.to(dtype), base.to(dtype)
        cmp = compare("o", out, e, tol, unwritten=unwritten, baseline=b, baseline_required=False)
        x, e_r, bx = out.double(), e.to(dtype).double(), b.double()

        def bad_of(v: torch.Tensor, e_r: torch.Tensor = e_r) -> torch.Tensor:
            both_nan_free = ~torch.isnan(v) & ~torch.isnan(e_r)
            inf_any = torch.isinf(v) | torch.isinf(e_r)
            close = (v - e).abs() <= tol.atol + tol.rtol * e.abs()
            return (both_nan_free & ~inf_any & ~close) | (torch.isnan(v) != torch.isnan(e_r)) | (
                inf_any & both_nan_free & (v != e_r))

        bad = bad_of(x) | unwritten
        finite = torch.isfinite(x) & torch.isfinite(e)
        diff = torch.where(finite, (x - e).abs(), 0.0)
        assert cmp.mismatches == int(bad.sum()) and cmp.unwritten == 2
        assert cmp.nan_mismatches == int(((torch.isnan(x) != torch.isnan(e_r)) & ~unwritten).sum())
        assert cmp.inf_mismatches == int(((torch.isinf(x) | torch.isinf(e_r)) & ~torch.isnan(x) & ~torch.isnan(e_r)
                                          & (x != e_r)).sum())
        assert cmp.max_abs == float(diff.max()) and cmp.max_abs_index == (int(diff.argmax()),)
        rel = torch.where(e.abs() > 0, diff / e.abs(), torch.where(diff > 0, math.inf, 0.0))
        rel = torch.where(finite, rel, 0.0)
        assert cmp.max_rel == float(rel.max()) and cmp.max_rel_index == (int(rel.argmax()),)
        e_f = torch.where(finite, e, 0.0)
        assert cmp.rel_l2 == pytest.approx(math.sqrt(float((diff**2).sum()) / float((e_f**2).sum())), rel=1e-12)
        info = torch.finfo(dtype)
        ulp = torch.exp2(torch.floor(torch.log2(e_f.abs().clamp_min(info.tiny))) - round(-math.log2(info.eps)))
        assert cmp.max_ulp == float((diff / ulp).max())
        both = finite & torch.isfinite(bx)
        assert cmp.baseline is not None and cmp.baseline.baseline_mismatches == int(bad_of(bx).sum())
        assert cmp.baseline.kernel_max_abs == float(torch.where(both, diff, 0.0).max())
        assert cmp.baseline.baseline_max_abs == float(torch.where(both, (bx - e).abs(), 0.0).max())


def test_baseline_rule_fails_a_kernel_much_worse_than_the_framework():
    torch.manual_seed(0)
    e = torch.randn(1000, dtype=torch.float64)
    good = e.to(torch.float16)  # correctly rounded: as good as the baseline
    bad = (e + 0.004 * torch.randn_like(e)).to(torch.float16)  # within 1e-2 but far worse than rounding
    loose = Tolerance(1e-2, 1e-2, "t")
    assert compare("o", good, e, loose, baseline=good).passed
    cmp = compare("o", bad, e, loose, baseline=good)
    assert cmp.mismatches == 0 and not cmp.passed and not cmp.baseline.passed
    assert "same-precision baseline" in cmp.reasons[-1]


def test_baseline_rule_forgives_a_subnormal_flushed_to_zero_not_a_larger_error():
    """A correct kernel on a GPU (round 24's circular statistics, bf16 'tiny' data, H100) gave 0 where the framework
    kept a subnormal result, 9.7e-39: the GPU flushes subnormals in fp32 arithmetic. The baseline rule failed it
    ("error 9.73e-39 exceeds 2 x the same-precision baseline's 0"). Below fp32's smallest normal a difference says
    nothing about the kernel's arithmetic; above it the rule still holds."""
    e = torch.tensor([3e-38, 5e-38, -2e-38, 9.7e-39] * 16, dtype=torch.float64)
    base = e.to(torch.bfloat16)
    flushed = base.clone()
    flushed[3::4] = 0.0
    tol = Tolerance(1.6e-2, 1e-5, "t")
    cmp = compare("o", flushed, e, tol, baseline=base)
    assert cmp.passed and cmp.baseline is not None and cmp.baseline.passed, cmp.reasons
    worse = base.clone()
    worse[0::4] = torch.tensor(7e-38, dtype=torch.bfloat16)  # 4e-38 off: three times fp32's smallest normal
    cmp = compare("o", worse, e, Tolerance(1e-2, 1e-37, "t"), baseline=base)
    assert cmp.mismatches == 0 and not cmp.passed and "same-precision baseline" in cmp.reasons[-1], cmp.reasons


def test_shape_mismatch_is_a_failure_not_a_crash():
    cmp = compare("o", torch.zeros(3), torch.zeros(4, dtype=torch.float64), TOL)
    assert not cmp.passed and "shape mismatch" in cmp.reasons[0]


@pytest.mark.parametrize(("shape", "bad", "kind", "text"), [
    ((8, 129), (slice(None), slice(128, 129)), "tail-columns", "tail columns 128..128"),
    ((8, 64), (slice(None), slice(63, 64)), "tail-columns", "the last column (63)"),
    ((129, 8), (slice(128, 129), slice(None)), "tail-rows", "tail rows 128..128"),
    ((128, 128), (slice(32, 40), slice(64, 90)), "tile", "tile (1, 2) of 32x32"),
    ((64, 64), (slice(None), slice(5, 6)), "columns", "a stripe of columns 5"),
    ((64, 64), (slice(None), slice(None)), "everywhere", "everywhere (100% of elements)"),
])
def test_locate_names_where_errors_lie(shape, bad, kind, text):
    mask = torch.zeros(shape, dtype=torch.bool)
    mask[bad] = True
    loc = locate(mask)
    assert loc.kind == kind and text in loc.text


def test_locate_1d_tail():
    mask = torch.zeros(1000, dtype=torch.bool)
    mask[992:] = True
    loc = locate(mask)
    assert loc.kind == "tail"
    assert loc.text == "tail: elements 992..999, past the last full block of 16 or 32 (1000 = 31x32 + 8)"


def test_noop_guard_catches_an_identity_kernel_on_a_weak_check():
    torch.manual_seed(0)
    x = torch.randn(256)
    e = x.double() + 1e-7 * torch.randn(256, dtype=torch.float64)  # tiny update: rtol 1e-5 cannot see it
    tol = Tolerance(1e-5, 1e-5, "t")
    verdict = noop_guard(x.clone(), e, tol, [x])
    assert "input 0 unchanged" in verdict.weak and verdict.caught == "input 0 unchanged"
    right = e.float()
    assert noop_guard(right, e, tol, [x]).caught is None


def test_noop_guard_says_an_output_is_exactly_an_input_even_where_the_tolerance_sees_the_difference():
    torch.manual_seed(0)
    x = torch.randn(256)
    e = x.double() * 1.01  # the tolerance tells x from e: not a weak case, nothing caught
    tol = Tolerance(1e-5, 1e-5, "t")
    verdict = noop_guard(x.clone(), e, tol, [x])
    assert verdict.weak == () and verdict.caught is None and verdict.identical == "input 0 unchanged"
    assert noop_guard(e.float(), e, tol, [x]).identical is None


def test_noop_guard_is_silent_when_the_answer_really_is_zero():
    e = torch.zeros(16, dtype=torch.float64)
    v = noop_guard(torch.zeros(16), e, TOL, [])
    assert v.weak == () and v.caught is None


def test_noop_guard_treats_nan_as_equal_to_nan():
    e = torch.full((64,), float("nan"), dtype=torch.float64)
    v = noop_guard(torch.full((64,), float("nan")), e, TOL, [])
    assert v.caught is None and v.weak == ()


def _chunked_and_fused(a: torch.Tensor, e: torch.Tensor, u: torch.Tensor | None, b: torch.Tensor | None):
    """The chunked route's totals and mask, and the fused kernel's, on the same flat tensors."""
    from kcheck.compare import _fused

    tol = Tolerance(1e-5, 1.3e-6, "test")
    chunked = compare_module._Accumulator(a.dtype)
    bad1 = torch.zeros(a.numel(), dtype=torch.bool, device=a.device)
    for s in range(0, a.numel(), 20000):  # several chunks: the first maximum must survive the folding
        sl = slice(s, s + 20000)
        bad1[sl] = chunked.add(s, a[sl].double(), e[sl], tol, None if u is None else u[sl],
                               None if b is None else b[sl])
    fused = compare_module._Accumulator(a.dtype)
    bad2 = torch.zeros(a.numel(), dtype=torch.bool, device=a.device)
    values = _fused.fused_figures(a, e, tol, u, b, bad2, min_elements=0, force=True)
    assert values is not None
    fused.fold(0, values, u is not None, b is not None)
    return vars(chunked), bad1, vars(fused), bad2


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the interpreter's numpy casts of inf and 1e6 to fp16
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64])
@pytest.mark.parametrize("extras", ["none", "unwritten", "baseline", "both"])
def test_the_fused_comparison_gives_the_chunked_figures(dtype: torch.dtype, extras: str):
    """The one-pass Triton comparison of large GPU outputs (on a CPU under Triton's interpreter) gives every figure
    and the mismatch mask of the chunked route: NaN and infinities on both sides, a reference that overflows the
    dtype, zeros, subnormal references, poisoned elements, a baseline, and two equal largest differences in
    different programs (the first one's index wins, as argmax's)."""
    device = "cuda" if torch.cuda.is_available() else "cpu"
    g = torch.Generator().manual_seed(1)
    n = 3 * 16 * 1024 + 517  # four programs, the last one partial
    e = torch.randn(n, dtype=torch.float64, generator=g) * 3
    e[7::997], e[9::1999], e[11::3001] = math.nan, math.inf, 1e6
    e[13::401], e[15::503] = 0.0, 1e-310
    e[100] = e[40000] = 1.0
    a = e.to(dtype).clone()  # float64: a copy, not e itself
    a[::100] += 0.01
    a[5::791], a[6::893], a[8::1201] = math.nan, math.inf, -math.inf
    a[100] = a[40000] = 1e4
    u = torch.zeros(n, dtype=torch.bool)
    u[::777] = True
    b = (e + 1e-6).to(dtype)
    b[3::555] = math.nan
    use_u, use_b = extras in ("unwritten", "both"), extras in ("baseline", "both")
    e, a, u, b = (t.to(device) for t in (e, a, u, b))
    chunked, bad1, fused, bad2 = _chunked_and_fused(a, e, u if use_u else None, b if use_b else None)
    assert torch.equal(bad1, bad2)
    assert chunked["max_abs_at"] == 100 and chunked["mismatches"] > 0
    for key, value in chunked.items():
        if key in ("sq_diff", "sq_e", "sq_both"):  # sums added in another order
            assert fused[key] == pytest.approx(value, rel=1e-12), key
        else:
            assert fused[key] == value, key


def test_the_fused_comparison_declines_what_it_does_not_cover():
    from kcheck.compare import _fused

    a, e = torch.ones(64), torch.ones(64, dtype=torch.float64)
    bad = torch.zeros(64, dtype=torch.bool)
    assert _fused.fused_figures(a, e, TOL, None, None, bad, min_elements=0) is None  # a CPU tensor
    ints = torch.ones(64, dtype=torch.int32)
    assert _fused.fused_figures(ints, e, TOL, None, None, bad, min_elements=0, force=True) is None
    assert _fused.fused_figures(a[::2], e[::2], TOL, None, None, bad[::2], min_elements=0, force=True) is None


def test_the_fused_comparison_declines_when_its_kernel_cannot_compile(monkeypatch):
    """A Triton that cannot compile or launch the comparison kernel (an old GPU, a broken install) leaves the
    chunked route to run, not an exception out of the comparison."""
    from kcheck.compare import _fused

    class Broken:
        def __getitem__(self, grid):
            def launch(*args, **kwargs):
                raise RuntimeError("PassManager::run failed")
            return launch

    monkeypatch.setattr(_fused, "_kernel", Broken())
    a, e = torch.ones(64), torch.ones(64, dtype=torch.float64)
    bad = torch.zeros(64, dtype=torch.bool)
    assert _fused.fused_figures(a, e, TOL, None, None, bad, min_elements=0, force=True) is None


def test_an_edge_band_is_the_narrowest_run_of_slices_at_one_end_that_holds_every_error():
    m = torch.zeros(6, 40, dtype=torch.bool)
    m[:, :5] = True  # the first five columns of every row
    assert edge_band(m) == EdgeBand(1, 40, "start", 5, 1.0)
    m = torch.zeros(30, dtype=torch.bool)
    m[-2:] = True  # 1-D: the last two elements
    assert edge_band(m) == EdgeBand(0, 30, "end", 2, 1.0)
    m = torch.zeros(6, 40, dtype=torch.bool)
    m[:, 3:5] = True  # two columns off the edge: not a band at an end
    assert edge_band(m) is None
    m = torch.zeros(6, 40, dtype=torch.bool)
    m[:, :20] = True  # half the row: past the share an edge band may cover
    assert edge_band(m) is None
    m = torch.zeros(6, 40, dtype=torch.bool)
    m[0, :5] = True  # five elements of one row: too sparse for the first row's band or the first columns'
    assert edge_band(m) is None
    e = torch.randn(6, 40, dtype=torch.float64)
    a = e.float().clone()
    a[:, -2:] += 1.0
    assert compare("out", a, e, TOL).edge_band == EdgeBand(1, 40, "end", 2, 1.0)


def test_a_baseline_wider_than_the_output_is_rounded_to_its_dtype_first():
    """Round 37's expectile loss on fp16 'tiny' data: outputs near 5e-8, where fp16 holds only multiples of 2**-24
    (6e-8). The reference promoted to fp32 (torch.where of Python floats), so the "same-precision" baseline kept
    5.0886e-8 and its error was 1.9e-11, against the correctly rounded kernel's 2.9e-8: a correct control failed
    the baseline rule. Stored in fp16, the framework's result is the kernel's; a kernel worse than that still fails."""
    e = torch.tensor([5.09e-8, 3.35e-8, 3.61e-8, 9.78e-8, 1.05e-7, 7.21e-8] * 8, dtype=torch.float64)
    wide = (e * (1 + 1e-4)).float()  # fp32: within 1e-4 of the reference
    rounded = e.to(torch.float16)
    tol = Tolerance(1e-3, 6.1e-5, "t")
    cmp = compare("o", rounded, e, tol, baseline=wide)
    assert cmp.passed and cmp.baseline is not None and cmp.baseline.passed, cmp.reasons
    off = rounded.clone()
    off[::3] = off[::3] + torch.tensor(1.2e-7, dtype=torch.float16)  # two fp16 steps off at every third element
    cmp = compare("o", off, e, tol, baseline=wide)
    assert cmp.mismatches == 0 and not cmp.passed and "same-precision baseline" in cmp.reasons[-1], cmp.reasons
