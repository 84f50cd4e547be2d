"""Causes are ranked from evidence: each pattern where a debugger that guesses from one case goes wrong is a small
kernel (tests/debug_specs/evidence.py) with that symptom, and the cause it must rank first.

Kernels whose evidence is the interpreter's bounds and race checks (and whose out-of-bounds accesses a GPU would
really perform) are marked ``interpreter``.

Also: the score's rule (a cause whose hallmark is absent or contradicted never outranks one whose hallmark is
there), the deciding experiments (each run on a kernel whose behaviour settles its pair of causes), and advice
worded for the operation.
"""

from __future__ import annotations

import dataclasses
import importlib
import itertools
from pathlib import Path

import pytest
import torch

import kcheck
from kcheck import Status
from kcheck._device import detect
from kcheck.diagnose import BUG_CLASSES, Cause, Observation, debug, format_diagnosis
from kcheck.diagnose._decide import decide
from kcheck.diagnose._observe import Facts, Severity, severity
from kcheck.diagnose._probe import Prober, jittered, zeroed_outputs
from kcheck.diagnose._rules import diagnose, score
from kcheck.diagnose._sweep import Evidence, base_case, case_elements, decode_arange, probe_case, sweep_sizes

spec_of = importlib.import_module("debug_specs.evidence")


def _kinds(observations: list[Observation]) -> set[str]:
    return {o.kind for o in observations}


def _cause(diag, key: str) -> Cause | None:
    return next((c for c in diag.causes if c.key == key), None)


def _rank(diag, key: str) -> int:
    return next((i for i, c in enumerate(diag.causes) if c.key == key), len(diag.causes))


# -- the patterns ---------------------------------------------------------------------------------------------------


@pytest.mark.interpreter  # the interpreter's bounds and race checks are the evidence
def test_passing_every_square_shape_is_an_index_error_not_a_missing_guard(tmp_path):
    """A wrong output stride: right on square shapes, wrong (with out-of-bounds stores) on the others."""
    diag = debug(spec_of.stride_square_only, budget=20, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "index-transposition", text
    assert diag.top.hallmark_seen and "square-only" in _kinds(diag.top.supports), text
    assert "oob" in _kinds(diag.observations), text  # the out-of-bounds stores were seen, and weighed
    edge = _cause(diag, "edge-guard")
    assert edge is None or ("square-only" in _kinds(edge.contradicts) and edge.score < 0.5), text


@pytest.mark.interpreter  # the interpreter's bounds and race checks are the evidence
def test_races_between_programs_with_right_values_are_a_missing_atomic(tmp_path):
    """A split sum whose programs add into the output with a plain load and store: right values in the
    interpreter, race findings, at sizes that are not multiples of the block."""
    diag = debug(spec_of.racy_split_sum, budget=20, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "missing-atomic", text
    assert {"race-between-programs", "race-right-values"} <= _kinds(diag.top.supports), text
    edge = _cause(diag, "edge-guard")  # the racy sizes are ragged, but two whole blocks fail too
    assert edge is None or (edge.contradicts and edge.score < 0.5), text


def test_right_up_to_one_block_and_wrong_past_it_is_a_lost_inter_block_result(tmp_path):
    """A prefix sum with no carry between programs: the failure at N=129 sits in the tail, yet it is no edge bug."""
    diag = debug(spec_of.cumsum_no_carry, budget=20, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "missing-atomic", text
    assert "past-one-block" in _kinds(diag.top.supports), text
    assert "carry" in diag.top.next_check, text  # a scan is told to carry, not to use atomics
    edge = _cause(diag, "edge-guard")
    assert edge is None or ("past-one-block" in _kinds(edge.contradicts) and edge.score < 0.5), text


def test_inf_on_large_logits_outranks_a_rounding_level_smallest_case(tmp_path):
    """A log-sum-exp without max subtraction, checked at a tolerance tighter than fp32 rounding: the smallest case
    by size fails by an ulp; the large logits give inf. The diagnosis rests on the inf."""
    report = kcheck.check(spec_of.lse_no_max, isolate=True).specs[0]
    failing = [r for r in report.cases if not r.ok]
    by_size = min(failing, key=lambda r: r.case.sizes["M"] * r.case.sizes["N"])
    assert severity(by_size) is Severity.ROUNDING  # the trap: the smallest failure is rounding
    diag = debug(spec_of.lse_no_max, report=report, budget=20, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "exp-overflow", text
    assert "rounding-only" in _kinds(diag.observations), text
    assert diag.minimal_case != by_size.case.id and diag.minimal_case is not None, text
    minimal = next(r for r in failing if r.case.id == diag.minimal_case)
    assert severity(minimal) is Severity.NONFINITE, text
    assert all(c.key != "edge-guard" or c.score < 0.5 for c in diag.causes), text


@pytest.mark.interpreter  # the interpreter's bounds and race checks are the evidence
def test_a_missing_store_mask_whose_spill_races_is_an_edge_bug_not_a_missing_atomic(tmp_path):
    """The ragged block's unmasked store spills into the next row: write-write races between programs with right
    values, as a missing atomic would give; but the last row's spill goes past the tensor, and lost updates stay
    inside it. (That the blocks experiment settles the pair when they are close: the decide tests below.)"""
    diag = debug(spec_of.store_spill, budget=20, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "edge-guard", text
    assert {"edge-pattern", "oob"} <= _kinds(diag.top.supports), text
    atomic = _cause(diag, "missing-atomic")
    assert atomic is not None and atomic.hallmark_seen, text  # the write-write races were seen, and weighed
    assert "oob" in _kinds(atomic.contradicts) and atomic.score < 0.5, text


@pytest.mark.interpreter  # the interpreter's bounds and race checks are the evidence
def test_a_per_channel_bias_on_the_wrong_axis(tmp_path):
    """A bias read with the flat index % M where % N is meant: fails only when the two dims differ, and reads past
    the bias's end when M > N."""
    diag = debug(spec_of.bias_wrong_axis, budget=20, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "wrong-axis", text
    assert diag.top.hallmark_seen and diag.top.score >= 0.7, text
    assert "oob-vector" in _kinds(diag.observations), text  # the bias read past its end, weighed for this cause
    assert _rank(diag, "edge-guard") > 1, text
    transposition = _cause(diag, "index-transposition")
    assert transposition is None or transposition.score < diag.top.score - 0.15, text
    # every cause is a class and says what it rests on; no "unknown" when a cause has its hallmark
    assert all(c.key in BUG_CLASSES and c.hallmark and (c.supports or c.contradicts) for c in diag.causes), text
    assert _cause(diag, "unknown") is None, text


def test_cancellation_advice_is_worded_for_the_operation(tmp_path):
    """logsumexp(x) - max(x) loses fp32's digits on data of a large mean: a cancellation, in a log-sum-exp."""
    diag = debug(spec_of.lse_minus_max, budget=20, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "cancellation", text
    advice = diag.top.next_check
    assert "log-sum-exp" in advice and "variance" not in advice and "E[x^2]" not in advice, advice


def test_a_variance_still_gets_the_variance_advice():
    from kcheck._results import SpecReport
    from kcheck.diagnose._rules import PROFILES

    layernorm = kcheck.Spec(name="layernorm_fwd", kernel=lambda x: x, reference=lambda x: x.var(-1),
                            inputs=[kcheck.Tensor("N")], dtypes=["fp32"])
    ev = Evidence(layernorm, SpecReport(layernorm.name, "torch", "cpu", []), [])
    advice = next(p for p in PROFILES if p.key == "cancellation").advice(ev)
    assert "variance" in advice and "Welford" in advice


def test_a_kernel_that_crashes_gets_its_own_cause(tmp_path):
    """Every case dies with SIGSEGV: the cause is the crash, with its signal, never 'no rule matched'."""
    cases = [c.id for c in kcheck.matrix(spec_of.crashes, tier="quick")][:4]
    report = kcheck.check(spec_of.crashes, cases=cases, isolate=True).specs[0]
    assert all(r.status.value == "crashed" for r in report.cases if r.case.sizes["M"] * r.case.sizes["N"] > 1)
    diag = debug(spec_of.crashes, report=report, budget=8, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "kernel-crash", text
    assert "SIGSEGV" in " ".join(diag.top.evidence), text
    assert "no rule matched" not in text and "no cause proposed" not in text


def test_nothing_fits_gives_unknown_with_what_was_seen_not_a_confident_cause(tmp_path):
    """Every seventh element off, at every size: no hallmark of any class is there."""
    diag = debug(spec_of.unexplained, budget=10, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.causes and all(c.score < 0.5 for c in diag.causes), text
    unknown = _cause(diag, "unknown")
    assert unknown is not None and any("wrong at every size" in e for e in unknown.evidence), text


@pytest.mark.parametrize("name", ["wrong_constant", "channel_constant"])
def test_a_coefficient_off_everywhere_is_a_wrong_constant_not_an_index_error(tmp_path, name):
    """``wrong_constant``: a softmax whose exp scale is ln 2 where 1 belongs: every ordinary case off at most
    elements by a fraction of the values; all-ones rows are right (any scale gives a uniform softmax), which is no
    index error. ``channel_constant``: three activations stacked, the second with a wrong slope: one slice in three
    of the output is wrong at nearly every element, the others right, at every shape. Under the whole-output rule
    (most elements wrong) that was "wrong at every size" and nothing else, and an index error ranked first; the
    slices a wrong element keeps to, the same at every shape, are a coefficient's."""
    diag = debug(getattr(spec_of, name), budget=20, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "wrong-constant", text
    assert diag.top.hallmark_seen and "systematic-error" in _kinds(diag.top.supports), text
    index = _cause(diag, "index-transposition")
    assert index is None or index.score < 0.5, text


def test_errors_that_keep_to_some_slices_of_a_dimension_are_located_there():
    from kcheck.compare import confined

    torch.manual_seed(0)
    one_channel = torch.zeros(3, 40, 50, dtype=torch.bool)
    one_channel[1] = torch.rand(40, 50) > 0.05
    c = confined(one_channel)
    assert c is not None and (c.dim, c.size, c.wrong) == (0, 3, 1) and c.density > 0.9, c
    tail = torch.zeros(40, 50, dtype=torch.bool)
    tail[:, 48:] = True
    c = confined(tail)
    assert c is not None and (c.dim, c.size, c.wrong, c.density) == (1, 50, 2, 1.0), c
    assert confined(torch.rand(40, 50) > 0.5) is None  # every row and every column holds an error
    assert confined(torch.zeros(40, 50, dtype=torch.bool)) is None
    # computed on every failing output, past-2**31 ones included: no int64 copy of the mask (a bool sum makes one)
    from torch.profiler import ProfilerActivity, profile

    big = torch.zeros(4, 1024, 1024, dtype=torch.bool)
    big[1, :, :1000] = True
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        c = confined(big)
    assert c is not None and (c.dim, c.wrong) == (0, 1), c
    assert max(e.cpu_memory_usage for e in prof.events()) < big.numel(), "a copy of the mask as large as the mask"


def test_a_rolling_one_pass_variance_is_a_cancellation_beside_rare_randn_and_tiny_failures(tmp_path):
    """A rolling standard deviation from E[x^2] - E[x]^2 fails every large-mean case, and also: a long randn case
    at 22 of its million windows (those whose values happen to be nearly equal), and tiny data (the squares
    underflow). Either had been enough to hide the large-mean hallmark, and the diagnosis was unknown."""
    diag = debug(spec_of.rolling_std_one_pass, budget=20, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "cancellation" and diag.top.hallmark_seen, text
    assert "sparse-randn" in _kinds(diag.observations), text


def test_failing_only_on_non_contiguous_inputs_is_a_stride_assumption(tmp_path):
    """Rows addressed as row * N: right on contiguous inputs, wrong on padded rows of the same shape."""
    diag = debug(spec_of.stride_assumed, budget=20, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "stride-assumption", text
    assert "layout-only" in _kinds(diag.top.supports), text
    assert "stride" in diag.top.next_check, text


@pytest.mark.interpreter  # the interpreter's race check is the evidence
def test_a_program_reading_others_results_unordered_is_a_race_not_a_missing_atomic(tmp_path):
    """The last program sums the partials of all programs with no ticket: read-write races only, no two programs
    write one element, so nothing is lost to a plain store: a race (ordering), not a missing atomic."""
    diag = debug(spec_of.last_program_race, budget=20, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "race", text
    assert "race-read-only" in _kinds(diag.top.supports), text
    atomic = _cause(diag, "missing-atomic")
    assert atomic is None or atomic.score < 0.5, text


def test_a_grid_that_rounds_down_is_a_dropped_tail_not_a_no_op(tmp_path):
    """Below one block nothing is written (the smallest failing case looks like a kernel that never runs); above
    it, only the tail is unwritten: the grid drops the last tile."""
    diag = debug(spec_of.grid_rounds_down, budget=20, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "tail-tile-dropped", text
    noop = _cause(diag, "no-op")
    assert noop is None or ("partly-written" in _kinds(noop.contradicts) and noop.score < 0.5), text


def test_a_cancellation_is_seen_beside_failures_on_nan_inputs(tmp_path):
    """A one-pass variance that also maps NaN inputs to zeros: the nonfinite pattern fails for its own reason,
    which does not hide that only a large mean breaks the values."""
    diag = debug(spec_of.variance_one_pass, budget=20, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "cancellation", text
    assert "large-mean-only" in _kinds(diag.top.supports), text


# -- the score ------------------------------------------------------------------------------------------------------


def test_a_cause_without_its_hallmark_or_contradicted_never_outranks_one_with_it():
    heavy = [Observation("x", str(i), 0.3) for i in range(5)]
    against = [Observation("y", "against", 0.01)]
    for prior, supports in itertools.product((0.5, 0.7, 0.99), ([], heavy[:1], heavy)):
        with_hallmark = score(prior, [], [])
        assert with_hallmark >= 0.5
        assert score(None, supports, []) <= 0.45 < with_hallmark  # no hallmark, however much support
        assert score(prior, supports, against) <= 0.45 < with_hallmark  # contradicted, however strong
    assert max(score(None, heavy, []), score(0.99, heavy, against)) < 0.7  # never confident without a hallmark


# -- the deciding experiments ---------------------------------------------------------------------------------------


def _evidence(spec: kcheck.Spec) -> tuple[Evidence, Prober]:
    report = kcheck.check(spec, tier="quick", large=False).specs[0]
    ev = Evidence(spec, report, [r for r in report.cases if not r.ok])
    ev.base = base_case(spec, report)
    probe_case(ev)
    return ev, Prober(spec, detect(), 60)


def _close(a: str, b: str) -> list[Cause]:
    return [Cause(a, BUG_CLASSES[a], 0.8), Cause(b, BUG_CLASSES[b], 0.75)]


@pytest.mark.interpreter  # the interpreter's bounds and race checks are the evidence
def test_square_against_non_square_decides_an_edge_bug_from_an_index_error():
    ev, prober = _evidence(spec_of.stride_square_only)
    dec = decide(prober, ev, Facts(ev), _close("edge-guard", "index-transposition"))
    assert dec is not None and dec.name == "shape" and "index or axis error" in dec.settled, dec
    labels = [e.label for e in prober.experiments]
    assert any("non-square" in x and "same area" in x for x in labels), labels
    assert all("(edge-guard or index-transposition?)" in x for x in labels), labels
    assert all(e.decided == dec.settled for e in prober.experiments)
    assert diagnose(ev)[0].key == "index-transposition"


def test_one_block_against_two_decides_a_lost_result_from_an_edge_bug():
    ev, prober = _evidence(spec_of.cumsum_no_carry)
    sweep_sizes(prober, ev, ["N"])
    # the seeds experiment runs first whatever the scores (a threshold along N); the pair's experiment next
    first = decide(prober, ev, Facts(ev), _close("edge-guard", "missing-atomic"))
    assert first is not None and first.name == "seeds" and "threshold-holds-seeds" in _kinds(first.observations)
    dec = decide(prober, ev, Facts(ev), _close("edge-guard", "missing-atomic"))
    assert dec is not None and dec.name == "blocks", dec
    assert "two full blocks fail" in dec.settled and "blocks-decided" in _kinds(dec.observations), dec
    assert diagnose(ev)[0].key == "missing-atomic"


def test_another_program_order_shows_a_result_that_depends_on_which_program_runs_last():
    spec = importlib.import_module("zoo_kernels.split_sum_no_atomic").spec
    ev, prober = _evidence(spec)
    dec = decide(prober, ev, Facts(ev), _close("missing-atomic", "edge-guard"))
    if not prober.backend.interpreted(prober.device):
        assert dec is None or dec.name != "order"
        return
    assert dec is not None and dec.name == "order" and "order-dependent" in _kinds(dec.observations), dec
    assert {e.label.split(" (")[0] for e in prober.experiments} == {"programs in reversed order",
                                                                    "programs in random order"}


def test_the_same_data_scaled_decides_an_overflow():
    ev, prober = _evidence(spec_of.lse_no_max)
    dec = decide(prober, ev, Facts(ev), _close("tolerance", "exp-overflow"))
    assert dec is not None and dec.name == "scale" and "scale-decided" in _kinds(dec.observations), dec


def test_a_large_mean_against_the_same_magnitude_decides_a_cancellation():
    ev, prober = _evidence(spec_of.lse_minus_max)
    dec = decide(prober, ev, Facts(ev), _close("low-precision-accumulation", "cancellation"))
    assert dec is not None and dec.name == "shift" and "shift-decided" in _kinds(dec.observations), dec
    assert diagnose(ev)[0].key == "cancellation"


@pytest.mark.interpreter  # the interpreter's bounds and race checks are the evidence
def test_the_per_channel_operand_at_ones_decides_a_wrong_axis_from_a_transposition():
    ev, prober = _evidence(spec_of.bias_wrong_axis)
    sweep_sizes(prober, ev, ["M"])  # non-square shapes: the quick tier's are all square
    dec = decide(prober, ev, Facts(ev), _close("index-transposition", "wrong-axis"))
    assert dec is not None and dec.name == "ones" and "vector-ones-rescues" in _kinds(dec.observations), dec


def test_far_apart_causes_run_no_deciding_experiment():
    ev, prober = _evidence(spec_of.cumsum_no_carry)
    far = [Cause("wrong-axis", BUG_CLASSES["wrong-axis"], 0.9), Cause("edge-guard", BUG_CLASSES["edge-guard"], 0.4)]
    assert decide(prober, ev, Facts(ev), far) is None and prober.experiments == []


class _Seen:
    """Observations alone, for the rules that need no experiment."""

    def __init__(self, *kinds: str) -> None:
        from types import SimpleNamespace

        self.observations = [Observation(k, k, 0.0) for k in kinds]
        # what the advice is worded for
        self.ev = SimpleNamespace(spec=spec_of.variance_one_pass, arange_permutes=False, failing=[], lint=[],
                                  decisions=[], sanitizer=[], findings=lambda: [])

    def has(self, *kinds: str) -> bool:
        return any(o.kind in kinds for o in self.observations)

    def get(self, kind: str) -> list[Observation]:
        return [o for o in self.observations if o.kind == kind]


def _causes(*kinds: str) -> list[Cause]:
    """The causes the rules rank from these observations alone, best first."""
    from kcheck.diagnose._rules import PROFILES, evaluate

    causes = [c for p in PROFILES if (c := evaluate(p, _Seen(*kinds))) is not None]  # type: ignore[arg-type]
    return sorted(causes, key=lambda c: -c.score)


def _ranked(*kinds: str) -> list[str]:
    return [c.key for c in _causes(*kinds)]


@pytest.mark.parametrize("cause,kinds", [
    ("missing-atomic", ("past-one-block", "reduce-across-blocks")),
    ("off-by-one-mask", ("reads-one-past",)),
    ("tail-tile-dropped", ("edge-accesses-clean",)),
    ("index-transposition", ("square-only",)),
    ("race", ("nondeterministic",)),
    ("edge-guard", ("oob-wide", "oob")),
])
def test_a_hallmark_right_about_half_the_time_ranks_its_cause_first_but_not_confident(cause, kinds):
    """Scored on every earlier held-out round (benchmarks/replay_rules.py --hallmarks), these hallmarks named the
    planted cause for half to two thirds of the rows they put first: a lost inter-block result for "right up to one
    block" (6 of 12: a program reading a total too early fails the same way), an off-by-one for a read one element
    past what the reference uses (3 of 6), a dropped tail for clean edge accesses (5 of 8), a transposition for
    square-only (7 of 10), a race for runs that differ (2 of 3), an edge guard for a wide out-of-bounds access (8 of
    12). Alone they rank their cause first, below the confident 0.7."""
    causes = _causes(*kinds)
    assert causes[0].key == cause and causes[0].hallmark_seen, causes
    assert 0.5 <= causes[0].score < 0.7, causes


def test_single_lanes_just_past_the_end_are_a_bound_not_a_swapped_index():
    """Round 25's segment max (a `<=` on the segment's end) on the CPU: wrong values where every access stayed in
    bounds (the next segment's row is inside the tensor) beside reads of single lanes just past the end. The
    in-bounds wrong values made a transposition 0.75 over the off-by-one's 0.7. A swapped stride sends many lanes
    far past an end; every stored held-out row with single-lane overruns was an off-by-one (20 of 20)."""
    causes = _causes("wrong-in-bounds", "everywhere-wrong", "ones-rescues", "oob", "oob-single-lane", "gross")
    assert causes[0].key == "off-by-one-mask", causes
    assert all(c.score < 0.5 for c in causes if c.key == "index-transposition"), causes


def test_a_dropped_tail_computes_no_nan_and_ones_cannot_fill_it():
    """Clean edge accesses beside NaN on randn and on all-zero data (round 18's sMAPE and round 5's masked mean, a
    0 / 0): a tile that is never written holds kcheck's poison, which the NaN observations leave out, and an input at
    ones that rights the values wrote every element."""
    for extra in (("nonfinite-randn", "nonfinite-zero"), ("ones-rescues",)):
        tail = next(c for c in _causes("edge-accesses-clean", "edge-pattern", *extra) if c.key == "tail-tile-dropped")
        assert tail.score < 0.5 and tail.contradicts, (extra, tail)


@pytest.mark.parametrize("kinds", [
    ("past-one-block", "reduce-across-blocks"), ("square-only", "vector-operand", "past-one-block"),
    ("raises", "gross"), ("edge-accesses-clean", "edge-pattern", "nonfinite-zero"), ("nondeterministic",),
    ("large-mean-only", "baseline-only"), ("gross",),
])
def test_the_replay_of_stored_kinds_ranks_as_the_rules_do(kinds):
    """benchmarks/replay_rules.py scores earlier rounds' stored observation kinds with ``replay``: it must rank as
    the rules rank the same observations (the causes whose prior reads the facts aside)."""
    from kcheck.diagnose import replay

    ranked = [(c.key, c.score) for c in _causes(*kinds) if c.key not in ("kernel-raises", "kernel-crash")]
    replayed = [(k, s) for k, s, _ in replay(frozenset(kinds))
                if k not in ("kernel-raises", "kernel-crash", "unknown")]
    assert replayed == ranked


def test_the_replay_benchmark_counts_right_and_confident_wrong_rows(tmp_path):
    """benchmarks/replay_rules.py on two stored rows: a lost carry seen only past one block (right, not confident)
    and a race whose only evidence is a write-write finding (confidently called a lost update); a control row and a
    re-scoring file (``_after``) are left out."""
    import importlib.util
    import json
    from pathlib import Path

    rows = [{"spec": "a", "buggy": True, "class": "missing-atomic", "diagnosis_ok": True,
             "observations": ["past-one-block", "reduce-across-blocks"]},
            {"spec": "b", "buggy": True, "class": "race", "diagnosis_ok": False, "observations": ["race-write-write"]},
            {"spec": "c", "buggy": False, "class": None, "observations": ["gross"]}]
    (tmp_path / "zoo_cpu_heldout99.json").write_text(json.dumps({"rows": rows}))
    (tmp_path / "zoo_cpu_heldout99_after.json").write_text(json.dumps({"rows": rows}))
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "replay_rules.py"
    spec = importlib.util.spec_from_file_location("replay_rules", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--results", str(tmp_path), "--json", str(tmp_path / "out.json")]) == 0
    out = json.loads((tmp_path / "out.json").read_text())
    assert (out["rows"], out["right"], out["stored_right"], out["confident"]) == (2, 1, 1, 1), out
    assert [(w["spec"], w["top"], w["hallmark"]) for w in out["confident_wrong"]] == [
        ("b", "missing-atomic", "race-write-write")], out


def test_a_barrier_under_a_thread_dependent_branch_outranks_a_missing_one():
    """Runs that differ, in a kernel with shared memory, whose source has __syncthreads() under a branch on the
    thread index: the barrier exists and some threads skip it (divergent), rather than being absent."""
    assert _ranked("nondeterministic", "shared-memory", "static-divergent-barrier")[0] == "divergent-barrier"
    assert _ranked("shared-race", "static-divergent-barrier")[0] == "divergent-barrier"
    # without the static finding, the same symptoms are a missing barrier
    assert _ranked("nondeterministic", "shared-memory")[0] == "missing-syncthreads"
    assert _ranked("shared-race", "shared-memory")[0] == "missing-syncthreads"  # racecheck, CUDA C's __shared__
    # synccheck's own finding stays decisive
    assert _ranked("divergent-barrier", "shared-race")[0] == "divergent-barrier"


def test_a_launcher_returning_its_input_is_a_no_op_even_where_the_tolerance_sees_the_difference(tmp_path):
    """The output is exactly the first input in every failing case; the difference from the reference is a small
    fraction of the values everywhere, which alone reads as a wrong constant."""
    diag = debug(spec_of.returns_input, budget=20, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "no-op", text
    assert "noop" in _kinds(diag.top.supports), text


@pytest.mark.interpreter  # the interpreter's bounds check sees the unmasked load
def test_a_read_past_the_end_among_1d_tensors_of_one_length_is_an_edge_guard_not_a_wrong_axis(tmp_path):
    """Every input is 1-D and of the same length: none is a per-channel operand beside a longer dimension, so the
    read past the end is a missing guard."""
    diag = debug(spec_of.vectors_unmasked_load, budget=20, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "edge-guard", text
    assert "oob-vector" not in _kinds(diag.observations), text


def test_a_window_one_element_too_wide_is_an_off_by_one_seen_by_bumping_what_the_reference_ignores(tmp_path):
    """Wrong at every size, no access out of bounds, no edge pattern: only raising the elements the reference
    ignores, next to the ones it uses, shows the kernel reads one of them (and none farther away)."""
    diag = debug(spec_of.window_one_too_wide, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "off-by-one-mask", text
    assert "reads-one-past" in _kinds(diag.top.supports), text


def test_the_elements_the_reference_ignores_are_found_from_its_gradient_and_split_at_the_boundary():
    import torch

    from kcheck.diagnose._probe import ignored_region

    x = torch.randn(4, 16, dtype=torch.float64)
    spec = spec_of.window_one_too_wide
    near = ignored_region(spec, [x], 0, {}, "boundary")
    far = ignored_region(spec, [x], 0, {}, "far")
    assert near is not None and far is not None
    assert near.sum(-1).tolist() == [1, 1, 1, 1] and bool(near[:, 16 - 9].all())  # just below the window
    assert far.sum(-1).tolist() == [7, 7, 7, 7]
    assert ignored_region(spec_of.returns_input, [x, x], 0, {}, "boundary") is None  # a dense op ignores nothing


def test_runs_that_differ_make_a_rescue_by_zeroed_outputs_a_race_not_an_uninitialized_accumulator():
    """kcheck poisons outputs the same way at every run, so reading them gives the same wrong values each time; a
    program that reads other programs' results before they are written (a scan's carry without a flag) differs from
    run to run, and a zeroed run may pass by luck (seen on the H200)."""
    assert _ranked("zeroed-rescues", "nondeterministic")[0] == "race"
    assert _ranked("zeroed-rescues")[0] == "uninitialized-accumulator"


def test_the_ones_experiment_runs_where_the_per_channel_operand_is_the_longest_dimension():
    """A bias read along the rows: past the bias's end where there are more rows than channels (garbage on a GPU,
    which ones cannot fix), inside it where there are fewer: the deciding experiment takes a case of the second
    kind when one failed."""
    from types import SimpleNamespace

    from kcheck.diagnose._sweep import operand_longest

    spec = spec_of.bias_wrong_axis
    vec = next(i for i, t in enumerate(spec.inputs) if len(getattr(t, "dims", ())) == 1)
    (dim,) = spec.inputs[vec].dims
    other = next(d for d in spec.dim_names() if d != dim)
    assert operand_longest(spec, vec, SimpleNamespace(sizes={other: 17, dim: 33}))
    assert not operand_longest(spec, vec, SimpleNamespace(sizes={other: 129, dim: 1}))


def test_a_flat_point_of_a_used_element_is_not_an_element_the_reference_ignores():
    """(p - t)**2 has a zero gradient where p == t, relu below zero: raising those elements changes the reference,
    so they are used (an MSE with a lost partial sum was called an off-by-one from them on the H200)."""
    import torch

    from kcheck.diagnose._probe import ignored_region

    p = torch.tensor([[1.0, 2.0, 3.0, 4.0]], dtype=torch.float64)
    t = torch.tensor([[1.0, 0.0, 3.0, 0.0]], dtype=torch.float64)  # equal at columns 0 and 2
    def sq(p: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        return ((p - t) ** 2).mean()

    mse = kcheck.Spec(name="mse", kernel=sq, reference=sq,
                      inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("M", "N")], dims={"M": kcheck.Dim(nominal=1)})
    assert ignored_region(mse, [p, t], 0, {}, "boundary") is None
    relu = kcheck.Spec(name="relu", kernel=torch.relu, reference=torch.relu, inputs=[kcheck.Tensor("M", "N")],
                       dims={"M": kcheck.Dim(nominal=1)})
    assert ignored_region(relu, [torch.tensor([[-1.0, 2.0, -3.0, 4.0]], dtype=torch.float64)], 0, {}, "boundary") \
        is None


def test_no_ignored_elements_probe_is_spent_on_a_dense_operation(tmp_path):
    """The reference of an elementwise lerp depends on every input element: the probe that raises ignored elements
    has nothing to raise and is not run."""
    diag = debug(spec_of.returns_input, budget=20, out_dir=tmp_path, repro=False, maps=False)
    assert diag.experiments and not [e for e in diag.experiments if e.axis == "ignored"], format_diagnosis(diag)


def test_a_scale_and_a_shift_on_the_wrong_axis_are_shown_by_both_at_ones(tmp_path):
    """Two per-channel operands read with the column index: wrong on square shapes too, and neither at ones alone
    rights the values; both at ones together do (and a raised slice of either shows the axis)."""
    diag = debug(spec_of.affine_wrong_axis, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "wrong-axis", text
    assert diag.top.hallmark_seen and "vectors-ones-rescue" in _kinds(diag.top.supports), text


def test_nan_only_on_rows_of_one_or_two_elements_is_a_zero_denominator_not_an_edge(tmp_path):
    """A masked mean dividing by the count of kept elements: NaN where a row keeps none (zeros; randn rows of one or
    two elements); every longer ragged size passes, so no block edge is involved."""
    diag = debug(spec_of.masked_mean_zero_count, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "division-by-zero", text
    assert diag.top.hallmark_seen and diag.top.score >= 0.7, text
    assert "edge-pattern" not in _kinds(diag.observations), text
    assert "nonfinite-short" in _kinds(diag.observations), text


def test_an_eps_of_another_size_shows_on_data_scaled_down(tmp_path):
    """An RMSNorm with eps 1e-8 where the contract has 1e-6: right on the nominal randn case, wrong on rows of one
    or two elements and on the same data scaled down, which no index or tile bug explains."""
    diag = debug(spec_of.rmsnorm_eps, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "wrong-constant", text
    assert diag.top.hallmark_seen and "tiny-scale-fails" in _kinds(diag.top.supports), text
    assert "edge-pattern" not in _kinds(diag.observations), text


@pytest.mark.parametrize("name", ["srgb_wrong_exponent", "huber_wrong_offset"])
def test_wrong_exactly_where_an_input_takes_one_branch_is_a_constant_not_an_index(tmp_path, name):
    """sRGB decoding with the power branch's exponent 2.2 (wrong where the input lies in (0.04045, 1), a third of
    randn data), and a Huber loss whose linear branch has the wrong offset (wrong where |x| > delta: both tails).
    Neither is wrong at most elements, nor at some place: the wrong elements are those of some input values."""
    diag = debug(getattr(spec_of, name), budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "wrong-constant", text
    assert diag.top.hallmark_seen and "value-band" in _kinds(diag.top.supports), text
    assert diag.top.score >= 0.7, text


def test_a_mean_over_the_wrong_axis_shows_when_one_channel_moves_the_others(tmp_path):
    """Squeeze-and-excitation whose squeeze averages over the channels instead of the length: wrong everywhere by a
    fraction of the values, like a wrong constant; raising one channel of x moves every other channel's output,
    where the reference's change stays in that channel."""
    diag = debug(spec_of.channel_gate_wrong_axis, budget=60, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "wrong-axis", text
    assert diag.top.hallmark_seen and "mixes-slices" in _kinds(diag.top.supports), text
    assert any(e.axis == "slice" for e in diag.experiments), text


def test_a_column_mean_over_the_wrong_tile_axis_shows_in_place_and_under_a_shift_invariant_reference(tmp_path):
    """Columns standardized in place, their means summed along the row lanes of a square tile (round 24's column
    standardization, read as a wrong constant): the slice probe now runs on an input written in place (each of its
    two calls gets a copy), and raises the column by 1, 1.5, 2, ...: a constant bump leaves a standardized column
    as it was, so the reference showed no change inside the slice and the probe could not run."""
    diag = debug(spec_of.standardize_columns_tile_axis, budget=60, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert any(e.axis == "slice" for e in diag.experiments), text
    assert diag.top is not None and diag.top.key == "wrong-axis", text
    assert "mixes-slices" in _kinds(diag.top.supports), text


def test_the_slice_probe_sees_nothing_on_a_kernel_that_keeps_channels_apart(tmp_path):
    """The same gate with a wrong constant: the probe runs and sees no output move outside the raised slice."""
    spec = dataclasses.replace(spec_of.channel_gate_wrong_axis, name="gate_scaled", kernel=spec_of.gate_scaled)
    diag = debug(spec, budget=60, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    probes = [e for e in diag.experiments if e.axis == "slice"]
    assert probes and all(e.passed for e in probes), text
    assert "mixes-slices" not in _kinds(diag.observations), text


def test_a_total_read_back_in_the_kernel_that_adds_into_it_is_a_race_not_a_lost_update(tmp_path):
    """Weights normalized in one kernel: each program adds its partial sum atomically, then loads the total. Right
    up to one block and wrong past it, like a missing atomic; but every add is atomic (the static check finds the
    load of what the kernel adds into), so what is wrong is when the total is read."""
    diag = debug(spec_of.normalize_readback, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "race", text
    assert diag.top.hallmark_seen and "static-atomic-readback" in _kinds(diag.top.supports), text
    assert "second kernel" in diag.top.next_check, text
    atomic = next((c for c in diag.causes if c.key == "missing-atomic"), None)
    assert atomic is None or atomic.score < 0.5, text


def test_a_per_channel_operand_built_by_a_custom_is_set_to_ones_like_a_tensor(tmp_path):
    """A log prior over items, drawn by the Spec's own function (``Custom`` with dims ("I",)) and read with the row
    index: at ones its log is 0 and the values come right, which points to the axis it is read along."""
    diag = debug(spec_of.prior_wrong_axis, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "wrong-axis", text
    assert diag.top.hallmark_seen and "vector-ones-rescues" in _kinds(diag.top.supports), text


def test_a_max_that_takes_one_step_past_each_length_reads_what_the_reference_ignores(tmp_path):
    """A length-masked max pool whose mask is ``t <= length``: the extra step lies inside the tensor (no access out
    of bounds), and the reference's gradient reaches only each maximum, so the elements it ignores are found with
    the input's values all equal (torch spreads a max's gradient over ties); raised, the step just past each length
    makes the kernel far more wrong."""
    diag = debug(spec_of.masked_max_one_past, budget=60, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "off-by-one-mask", text
    assert diag.top.hallmark_seen and "reads-one-past" in _kinds(diag.top.supports), text


def test_a_value_band_is_found_on_values_not_on_places():
    """The band records the input values of the wrong elements; wrong elements at random places are no band, and
    neither is a tail of the output whose values are random."""
    from kcheck.compare import value_band

    g = torch.Generator().manual_seed(0)
    x = torch.randn(64, 96, generator=g)
    band = value_band((x > 0.3) & (x < 1.2), [x])
    assert band is not None and not band.magnitude and 0.3 < band.lo < band.hi < 1.2, band
    assert band.wrong == band.inside == int(((x > 0.3) & (x < 1.2)).sum())
    tails = value_band(x.abs() > 1.5, [torch.ones(3), x])
    assert tails is not None and tails.magnitude and tails.input == 1 and tails.lo > 1.5, tails
    assert value_band(torch.rand(64, 96, generator=g) < 0.2, [x]) is None
    edge = torch.zeros(64, 96, dtype=torch.bool)
    edge[:, 90:] = True
    assert value_band(edge, [x]) is None
    assert value_band(x > -5, [x]) is None  # everywhere: no band


def test_the_per_channel_operand_at_ones_points_to_its_axis_only_when_other_inputs_at_ones_do_not_rescue():
    """A wrong axis reads the per-channel operand at the wrong index: the other inputs at ones leave the values
    wrong. When they right them too (a CUDA C conv reading a stale shared-memory tile, seen on the H200), constant
    data hides the misread, whatever operand it is in: no confident wrong axis."""
    from kcheck.diagnose._rules import PROFILES, evaluate

    axis = next(p for p in PROFILES if p.key == "wrong-axis")
    alone = evaluate(axis, _Seen("vector-ones-rescues", "vector-operand"))  # type: ignore[arg-type]
    assert alone is not None and alone.score >= 0.7
    together = evaluate(axis, _Seen("vector-ones-rescues", "vector-operand", "ones-rescues"))  # type: ignore[arg-type]
    assert together is not None and together.score < 0.5
    # beside the H200's other evidence (the wrong elements past the last full block), it no longer comes first
    assert _ranked("vector-ones-rescues", "vector-operand", "ones-rescues", "shared-memory", "tail-errors")[0] \
        != "wrong-axis"


def test_fp32_cases_that_raised_did_not_pass(tmp_path):
    """Value failures only in fp16, and fp32 cases that raised: "only the low precision fails" is not what was
    seen, and the exception is the cause to rank first."""
    diag = debug(spec_of.squareplus_raises, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert "low-precision-only" not in _kinds(diag.observations), text
    assert diag.top is not None and diag.top.key == "kernel-raises", text


def test_gross_run_to_run_differences_or_a_large_mean_alone_are_no_low_precision_accumulator():
    """Beyond the same-precision baseline with runs that differ by far more than reordering: a race (seen on the
    H200: an in-place row centring whose programs overwrite rows others still read). Beyond it on large-mean data
    only: digits lost to the mean, a formula that cancels (a row std as E[x^2] - E[x]^2)."""
    assert _ranked("baseline-only")[0] == "low-precision-accumulation"
    assert _ranked("baseline-only", "nondeterministic", "gross")[0] == "race"
    assert _ranked("baseline-only", "large-mean-baseline", "gross")[0] == "cancellation"


# -- held-out round 7's confusions, as observations (rules changed after the round was scored) ----------------------


class _SeenWithExtras(_Seen):
    """Observations, then the compound ones the rules derive from them for ``spec`` (``_extra_observations``)."""

    def __init__(self, spec: kcheck.Spec, *kinds: str) -> None:
        from types import SimpleNamespace

        super().__init__(*kinds)
        self.ev = SimpleNamespace(spec=spec, failing=[], arange_permutes=False, lint=[])
        self.blocks: list[tuple[str, int, int]] = []
        self.worst = Severity.GROSS

    def add(self, kind: str, text: str) -> None:
        self.observations.append(Observation(kind, text, 0.0))


def _ranked_extras(spec: kcheck.Spec, *kinds: str) -> tuple[list[str], set[str]]:
    from kcheck.diagnose._rules import PROFILES, _extra_observations, evaluate

    facts = _SeenWithExtras(spec, *kinds)
    _extra_observations(facts)  # type: ignore[arg-type]
    causes = [c for p in PROFILES if (c := evaluate(p, facts)) is not None]  # type: ignore[arg-type]
    return [c.key for c in sorted(causes, key=lambda c: -c.score)], _kinds(facts.observations)


def test_passing_every_square_shape_outranks_a_rescue_by_zeroed_outputs():
    """A weight gradient whose store swaps two indices leaves elements unwritten off the square; on a case whose
    expected values there are 0, zeroed outputs "rescue" it. An accumulator left uninitialized is wrong at every
    shape: square-only (or a never-written tail) contradicts it (H200, 0.92 for the wrong cause)."""
    assert _ranked("zeroed-rescues", "square-only", "unwritten", "partly-written")[0] == "index-transposition"
    assert _ranked("zeroed-rescues", "unwritten", "unwritten-tail")[0] == "tail-tile-dropped"
    assert _ranked("zeroed-rescues")[0] == "uninitialized-accumulator"


def test_one_case_beyond_the_baseline_does_not_outrank_a_structural_failure():
    """A mean whose programs store their partial sums (lost past one block) and one fp16 case within the table but
    beyond the baseline; a mask one past the row with an fp16 case beyond the baseline: an accumulator's precision
    is lost gradually with the length, not at block boundaries or past a tensor's end (H200: 0.85 each)."""
    lost = ("baseline-only", "past-one-block", "reduce-across-blocks", "edge-pattern", "gross", "rounding-only")
    assert _ranked(*lost)[0] == "missing-atomic"
    assert _ranked("baseline-only", "edge-pattern", "oob", "oob-wide", "gross")[0] == "edge-guard"
    assert _ranked("baseline-only", "error-grows")[0] == "low-precision-accumulation"


def test_memcheck_sees_one_element_past_the_end_from_the_distance_whatever_the_launches():
    """A mask ``cols <= C``: each out-of-bounds read is the element just past the tensor (memcheck: 1 byte after the
    allocation), repeated by every launch of the case (repeats, properties), so one record per case undercounts the
    launches and the bound was called many lanes wide (an edge guard) on the H200. The farthest record decides."""
    from kcheck._findings import Finding, deduplicate
    from kcheck.diagnose._observe import one_element_past

    def rec(distance: int | None, count: int = 1) -> Finding:
        return Finding("memcheck", "out-of-bounds", "error", "Invalid __global__ read of size 4 bytes", file="k.py",
                       line=7, size=4, distance=distance, allocation_size=4096, count=count, cases=["c1"])

    assert one_element_past(deduplicate([rec(1), rec(1), rec(1), rec(1)])[0])  # 4 launches, 1 case
    assert not one_element_past(deduplicate([rec(1), rec(61), rec(5)])[0])  # lanes 1..16 past the end
    merged = deduplicate([rec(1), rec(61), rec(5)])[0]
    assert (merged.distance, merged.farthest) == (1, 61)
    assert one_element_past(rec(None)) and not one_element_past(rec(None, count=3))  # no distance: one per case
    assert _ranked("oob", "oob-single-lane", "edge-pattern")[0] == "off-by-one-mask"


def test_runs_that_differ_with_nothing_reduced_across_programs_are_a_race_not_a_lost_result():
    """An in-place difference whose programs read the neighbours other programs overwrite: right up to one block,
    wrong past it, and runs that differ; the Spec reduces nothing, so no partial result can be lost (H200: the
    missing atomic 0.78 over the race 0.75). With a reduction across blocks, a lost partial sum stays first."""
    seen = ("config-dependent", "edge-pattern", "gross", "nondeterministic", "past-one-block", "zeroed-rescues")
    ranked, kinds = _ranked_extras(spec_of.store_spill, *seen)
    assert ranked[0] == "race" and "differs-without-reduction" in kinds
    ranked, kinds = _ranked_extras(spec_of.racy_split_sum, *seen, "reduce-across-blocks")
    assert ranked[0] == "missing-atomic" and "differs-without-reduction" not in kinds


def test_runs_that_differ_in_a_kernel_whose_outputs_are_smaller_than_its_inputs_are_no_race_by_default():
    """A column max whose slabs store their partial maxima (H200): runs differ, right up to one block, and the Spec
    declares no ``reduce``; its outputs are fewer than its inputs, so it reduces all the same: a lost partial result,
    not "nothing reduced across programs"."""
    seen = ("gross", "nondeterministic", "past-one-block")
    ranked, kinds = _ranked_extras(spec_of.store_spill, *seen, "reduces")
    assert ranked[0] == "missing-atomic" and "differs-without-reduction" not in kinds
    ranked, kinds = _ranked_extras(spec_of.store_spill, *seen)  # the same without the shapes' reduction
    assert ranked[0] == "race" and "differs-without-reduction" in kinds


def test_infinities_only_below_fp32_on_large_data_are_the_low_precision_not_an_exp():
    """A distance whose fp16 sum of squares overflows on large data: NaN/Inf on the large pattern, fp32 right. An
    exp without the max subtracted overflows in fp32 as well (CPU: exp-overflow 0.9 for it)."""
    assert _ranked("nonfinite-large", "low-precision-only", "wider-precision-passes", "gross")[0] == \
        "low-precision-accumulation"
    assert _ranked("nonfinite-large", "gross")[0] == "exp-overflow"


def test_a_per_channel_operand_read_past_its_end_only_at_ragged_sizes_is_an_edge_guard():
    """A layer scale whose gamma load has no mask: gamma is read past its end, but only where N is not a multiple of
    the block (the edge pattern); a gamma read along the wrong axis goes past its end at multiples too (CPU: wrong
    axis 0.75)."""
    seen = ("edge-pattern", "gross", "oob", "oob-vector", "oob-wide", "race-between-programs", "vector-operand")
    ranked, kinds = _ranked_extras(spec_of.bias_wrong_axis, *seen)
    assert ranked[0] == "edge-guard" and "vector-edge" in kinds and "oob-vector" not in kinds
    ranked, _ = _ranked_extras(spec_of.bias_wrong_axis, "gross", "oob", "oob-vector", "vector-operand")
    assert ranked[0] == "wrong-axis"


def test_a_racecheck_hazard_in_a_kernel_that_declares_no_shared_memory_is_no_missing_barrier():
    """racecheck reported a shared-memory hazard in a Triton kernel (held-out round 8's RBF kernel on the H200,
    whose bug was a cancellation): Triton manages and fences its shared memory, so "missing __syncthreads()" is not
    a cause its author can have made; in CUDA C with ``__shared__`` it stays the first cause."""
    assert _ranked("shared-race", "shared-memory")[0] == "missing-syncthreads"
    ranked = _ranked("shared-race", "large-mean-only", "shift-decided", "gross")
    assert ranked[0] == "cancellation"
    from kcheck.diagnose._rules import PROFILES, evaluate

    alone = evaluate(next(p for p in PROFILES if p.key == "missing-syncthreads"), _Seen("shared-race"))
    assert alone is not None and not alone.hallmark_seen and alone.score < 0.5


def test_a_wrong_coefficient_with_half_precision_cases_is_not_a_low_precision_accumulator(tmp_path):
    """An elementwise SiLU with beta 1.1: the fp16 cases are beyond the same-precision baseline (the hallmark of a
    low-precision accumulator), but the fp32 ones are wrong by far more than rounding at every size, with nothing
    accumulated: a wrong constant, and low precision is contradicted."""
    diag = debug(spec_of.swish_wrong_beta, budget=20, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "wrong-constant", text
    low = _cause(diag, "low-precision-accumulation")
    assert low is None or (low.score < 0.5 and "wide-precision-gross" in _kinds(low.contradicts)), text


def test_values_the_reference_puts_elsewhere_on_arange_inputs_are_an_index_error(tmp_path):
    """A permutation stored in another layout's order: every value lands at a position whose first two indices are
    swapped (not the last two), nothing out of bounds, nothing unwritten. On arange inputs each wrong output holds
    the value the reference puts at another position: wrong indices, not wrong arithmetic."""
    diag = debug(spec_of.permute_wrong_layout, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "index-transposition", text
    assert "arange-misplaced" in _kinds(diag.top.supports), text


def test_a_2d_operand_broadcast_along_a_dimension_read_along_the_wrong_one_is_a_wrong_axis(tmp_path):
    """A gain [B, N] beside x [B, M, N], read at [b, m] where [b, n] belongs: no 1-D input, yet a per-channel
    operand (broadcast along M); with it all ones the values are right. Not an index transposition."""
    diag = debug(spec_of.batch_gain_wrong_axis, budget=20, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "wrong-axis", text
    assert diag.top.hallmark_seen and "vector-ones-rescues" in _kinds(diag.top.supports), text
    assert any("broadcast along M" in o.text for o in diag.observations), text


def test_the_transposed_reference_probe_is_left_out_where_the_reference_does_not_see_the_transposition():
    """A symmetrization's reference gives the same result for A and A^T: "the kernel matches the reference of the
    transposed input" is then the plain case run again, and a pass only says that runs differ (an in-place race on
    the H200 was ranked an index transposition at 0.9 so). A reference that does see it keeps the probe."""
    from kcheck.diagnose._sweep import transpose_invariant

    def spec(reference):
        return kcheck.Spec(name="sym", kernel=reference, reference=reference, inputs=[kcheck.Tensor("N", "N")],
                           dims={"N": kcheck.Dim(nominal=16, real=())}, dtypes=["fp32"])

    sym = spec(lambda a: (a + a.T) * 0.5)
    case = kcheck.matrix(sym, device=detect())[0]
    assert transpose_invariant(sym, case, 0)
    assert not transpose_invariant(spec(lambda a: a * 2), case, 0)
    assert not transpose_invariant(spec(lambda a: a @ a), case, 0)


def test_the_zeroed_outputs_probe_does_not_apply_to_a_kernel_that_writes_its_inputs_in_place():
    """An in-place kernel allocates nothing kcheck poisons, so "outputs zeroed instead of poisoned" is the plain case
    run again: its pass said only that runs differ (an in-place race on the H200 was ranked an uninitialized
    accumulator at 0.92 so). The probe now errs there, saying why; a kernel that allocates its output is probed."""
    import torch

    from kcheck import Status
    from kcheck.diagnose._probe import zeroed_outputs
    from kcheck.run import run_case

    def in_place(a):
        return a.mul_(2)

    def allocating(a):
        out = torch.empty_like(a)
        out += a * 2  # reads its output before writing it: wrong under poison, right when zeroed
        return out

    def spec(kernel, mutated):
        return kcheck.Spec(name="twice", kernel=kernel, reference=lambda a: a * 2,
                           inputs=[kcheck.Tensor("N", mutated=mutated)], dims={"N": kcheck.Dim(nominal=64, real=())},
                           dtypes=["fp32"])

    dev = detect()
    s = spec(in_place, True)
    case = kcheck.matrix(s, device=dev)[0]
    assert run_case(s, case, dev).status is Status.PASSED
    res = run_case(zeroed_outputs(s), case, dev)
    assert res.status is Status.ERROR and "in place" in " ".join(res.reasons), res.reasons
    s = spec(allocating, False)
    case = kcheck.matrix(s, device=dev)[0]
    res = run_case(s, case, dev)
    assert res.status is Status.FAILED, res.reasons
    res = run_case(zeroed_outputs(s), case, dev)
    assert res.status is Status.PASSED, res.reasons


def test_a_wrong_axis_whose_smallest_case_reads_past_the_operand_is_decided_by_ones_where_it_is_longest(tmp_path):
    """The [B, N] gain read at [b, m], masked: where M > N the rows past N get 0, so the smallest failing case's
    ones probe rescues nothing. The deciding experiment runs the ones probe on a case where N is the longest
    dimension whenever a transposition is a close candidate: the values come right, a wrong axis."""
    diag = debug(spec_of.batch_gain_masked, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "wrong-axis", text


def test_errors_past_the_last_block_only_on_constant_data_are_no_missing_guard(tmp_path):
    """A per-column gain broadcast along each tile's rows, its load masked at the columns: on randn it is wrong
    everywhere; on constant data only past the last full block of columns, where the masked load gives 0 (a held-out
    calorimeter calibration so got edge-guard 0.6 over its wrong axis). Constant data hides a value read at the wrong
    place: its tail says nothing of a guard while other data is wrong elsewhere. Before: edge-guard 0.6 second."""
    diag = debug(spec_of.tile_gain_wrong_axis, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "wrong-axis", text
    edge = next((c for c in diag.causes if c.key == "edge-guard"), None)
    assert edge is None or edge.score < 0.3, text
    kinds = _kinds(diag.observations)
    assert "tail-on-uniform-only" in kinds and "tail-errors" not in kinds, kinds


def test_tiny_data_rounding_to_zeros_beside_randn_cases_that_compute_is_no_no_op(tmp_path):
    """1 - exp(x log(1 - q)) cancels: on tiny data exp rounds to exactly 1 and the output is exactly zeros, a no-op's
    output, while the randn cases of that shape fail by a few roundings only, with values computed. Before, those
    rounding-level failures did not count as computing and the one tiny case made the no-op 0.97 (a held-out
    Reed-Frost infection probability so); a randn case that computed wrong values computes as surely as one that
    passes."""
    diag = debug(spec_of.infection_prob_cancels, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "cancellation", text
    assert "noop" not in _kinds(diag.observations), text


def test_one_row_written_at_every_length_is_a_store_left_out_not_an_index(tmp_path):
    """A running maximum stores its first row before the loop along the rows and never inside it: at every length
    one row of the output is written and the rest never is (a held-out slew-rate limiter so). Before: the unwritten
    interior read as programs mapped to the wrong tiles, index-transposition 0.6; an index writes as many elements
    as it computes."""
    diag = debug(spec_of.running_max_unstored, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "no-op", text
    assert "written-one-slice" in _kinds(diag.observations), text


def test_a_reference_that_raises_in_every_case_blames_the_spec_not_the_kernel(tmp_path):
    """A Spec whose reference raises (a misspelt name) errs in every case before the kernel's output is judged.
    Before: "unknown", with the static int32 finding second; now the Spec's own fault first, with the fix."""
    diag = debug(spec_of.reference_misspelt, budget=20, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "tolerance" and diag.top.score >= 0.9, text
    assert "fix the Spec first" in text and "torhc" in text, text


def test_values_found_elsewhere_count_as_misplaced_only_where_the_reference_moves_values():
    """On arange inputs an output of arithmetic (x * g[...], x + bias[...]) can equal, by coincidence, the value
    expected at another position (round 9's wrong-axis key bias was so taken for an index error, 0.75): only a
    reference that moves values (every expected value an input's) makes a value found elsewhere a misplaced
    element. A 16-bit case is decoded in fp32, where arange does not wrap."""
    from kcheck.diagnose._sweep import decode_arange

    for spec, moves in ((spec_of.permute_wrong_layout, True), (spec_of.batch_gain_wrong_axis, False)):
        case = kcheck.matrix(spec, tier="quick")[0]
        ev = Evidence(spec, None, [])  # type: ignore[arg-type]
        with Prober(spec, detect(), 60) as prober:
            res = decode_arange(ev, case, prober)
        assert res is not None and res.case.pattern == "arange" and res.status is Status.FAILED, spec.name
        assert ev.arange_moves is moves, spec.name


def test_where_the_probe_case_crashes_the_values_are_decoded_on_the_smallest_case_that_computed(tmp_path):
    """The wrong layout again, with a launcher that dies wherever M is odd: the smallest failing case, the one the
    probes run on, crashes, and so does its arange probe (no value to decode). The arange inputs then run on the
    smallest case that computed wrong values, which shows every value at a position the reference gives another."""
    diag = debug(spec_of.permute_wrong_layout_crashing, budget=60, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "index-transposition", text
    assert "arange-misplaced" in _kinds(diag.top.supports), text


@pytest.mark.parametrize("name", ["mix_transposed_crashing", "mix_transposed_flat"])
def test_where_the_probe_case_gives_no_value_the_layout_probes_run_on_a_case_with_finite_values(tmp_path, name):
    """A matrix read with its dimensions swapped, where the smallest failing case of the most severe kind gives no
    value to compare: its launcher dies wherever M is odd (as round 37's stoichiometric production did in 5 of 92
    failing cases on an H100, ranked kernel-crash 0.6 there), or it reads the storage as if contiguous and takes a
    strided view's NaN padding in (round 36's factor exposure on an H100, probed on a bf16 'ones' strided case). The
    slice probe alone then said wrong-axis 0.75; run again on the smallest case with finite wrong values, the
    transposed reference shows the transposition. A crash stays the case shown."""
    diag = debug(getattr(spec_of, name), budget=40, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    if name == "mix_transposed_crashing":
        assert diag.minimal_case is not None and "M=1," in diag.minimal_case, text
    assert diag.top is not None and diag.top.key == "index-transposition", text
    assert "transposed-reference" in _kinds(diag.top.supports), text
    axis = _cause(diag, "wrong-axis")
    assert axis is None or axis.score < 0.7, text


@pytest.mark.interpreter  # the interpreter's race checks see the two programs of each pair
def test_an_in_place_movement_whose_programs_race_is_a_race_not_a_lost_update(tmp_path):
    """An in-place flip whose swap mask lets both programs of a pair swap it: write-write races, and right while one
    program covers the row, yet nothing is accumulated: the reference only moves values."""
    diag = debug(spec_of.flip_inplace_race, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "race", text
    assert "in-place-movement" in _kinds(diag.top.supports), text
    assert "exactly one program" in diag.top.next_check, text  # advice for a move, not for a barrier
    atomic = _cause(diag, "missing-atomic")
    assert atomic is None or ("in-place-movement" in _kinds(atomic.contradicts) and atomic.score < 0.5), text


def test_reading_one_element_past_each_row_shows_in_padded_rows_without_access_checks(tmp_path):
    """A row mean whose mask is cols <= N, checked as on a GPU (no access checks: reading one element past a row
    stays inside the allocation): the edge pattern alone looks like a missing guard; rows padded with 1000 just
    past their end, and not farther, show the bound off by one."""
    diag = debug(spec_of.row_mean_one_past, budget=40, out_dir=tmp_path, repro=False, maps=False,
                 interpreter_checks=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "off-by-one-mask", text
    assert "reads-one-past" in _kinds(diag.top.supports), text
    assert any(e.axis == "padding" for e in diag.experiments), text
    # the probes run as the check did: no access checks there either
    assert not any("interpreter finding" in e.detail for e in diag.experiments), text


def test_the_padding_probe_compares_with_rows_padded_with_zero_not_with_stale_memory(tmp_path):
    """The same one-past row mean, where the memory past the tensor holds 1e20 of stale data (as a GPU's allocator
    may leave it): the last row of every plain case reads it, so the plain error is huge and says nothing of the
    padding. Compared with rows padded with 0, 1000 just past their end still shows the bound off by one."""
    diag = debug(spec_of.row_mean_one_past_stale, budget=40, out_dir=tmp_path, repro=False, maps=False,
                 interpreter_checks=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "off-by-one-mask", text
    assert "reads-one-past" in _kinds(diag.top.supports), text
    assert any(e.axis == "padding" and "padded with 0" in e.label for e in diag.experiments), text


def test_a_table_read_with_swapped_strides_matches_the_transposed_reference_where_it_is_square(tmp_path):
    """A [32, H] table read as [H, 32]: wrong at every H (the table is not symmetric, so no square-only pattern),
    out of bounds only past H = 32. At H = 32, where the table is square, the output is the reference's of the
    table transposed: the transposed-reference probe runs there, not on the smallest failing case."""
    diag = debug(spec_of.relpos_table_transposed, budget=40, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "index-transposition", text
    assert "transposed-reference" in _kinds(diag.top.supports), text
    assert any(e.axis == "transpose" and "H=32" in e.label for e in diag.experiments), text


# the interpreter runs the programs one after another, so the race fails the same sizes every run; on a GPU whether
# it shows at all is up to the timing (on the H200 no case failed: nothing to build the evidence from)
@pytest.mark.interpreter
def test_a_failure_that_does_not_come_back_on_the_same_inputs_is_timing_not_an_edge():
    """As a GPU shows a racy in-place flip: no access checks, sizes that fail and pass at random (an edge pattern by
    chance), and the smallest failing case passes when run again on the same inputs. That is timing: an edge bug
    fails every run; the in-place movement makes it a race rather than a lost update."""
    spec = spec_of.flip_inplace_race
    report = kcheck.check(spec, tier="quick", large=False, interpreter_checks=False).specs[0]
    ev = Evidence(spec, report, [r for r in report.cases if not r.ok])
    ev.base = base_case(spec, report)
    case = probe_case(ev)
    assert case is not None and ev.minimal is not None and ev.minimal.status is Status.FAILED
    decode_arange(ev, case, Prober(spec, detect(), 60))
    assert "flaky" not in _kinds(Facts(ev).observations)  # the repeat failed too: nothing says timing
    ev.repeat = dataclasses.replace(ev.minimal, status=Status.PASSED, comparisons=[])  # the same inputs, passing
    facts = Facts(ev)
    assert {"flaky", "in-place-movement"} <= _kinds(facts.observations)
    causes = diagnose(ev, facts)
    assert causes[0].key == "race", causes
    edge = next((c for c in causes if c.key == "edge-guard"), None)
    assert edge is None or ("flaky" in _kinds(edge.contradicts) and edge.score < 0.5), causes


def test_a_bound_one_short_in_a_reduction_is_an_off_by_one_not_a_wrong_constant(tmp_path):
    """A row mean whose mask stops one short: wrong by a fraction at every length (it looks like a wrong constant),
    no access out of bounds. Raising the last element of each row leaves the kernel where the reference moves;
    raising the one before it, or the first, does not."""
    diag = debug(spec_of.row_mean_one_short, budget=40, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "off-by-one-mask", text
    assert "ignores-last" in _kinds(diag.top.supports), text
    const = _cause(diag, "wrong-constant")
    assert const is None or ("ignores-last" in _kinds(const.contradicts) and const.score < 0.5), text


def test_a_reduction_that_skips_its_last_partial_block_is_a_dropped_tail_not_a_no_op(tmp_path):
    """A row sum whose loop stops at the last whole block: exactly zeros below one block (a no-op's output), yet it
    passes at every multiple of the block, so it computes; raising the last elements (and the one before) leaves it
    unmoved where raising the first does not."""
    diag = debug(spec_of.row_sum_tail_skipped, budget=40, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "tail-tile-dropped", text
    assert "ignores-tail" in _kinds(diag.top.supports), text
    noop = _cause(diag, "no-op")
    assert noop is None or ("edge-pattern" in _kinds(noop.contradicts) and noop.score < 0.5), text


def test_tiles_that_no_program_writes_inside_the_output_are_an_index_error_not_a_dropped_tail(tmp_path):
    """Programs mapped to tiles with the wrong tile count: some tiles written twice, others never, inside the output
    as well as at its end; a grid that stops short leaves only a tail."""
    diag = debug(spec_of.tile_ids_swapped, budget=40, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "index-transposition", text
    tail = _cause(diag, "tail-tile-dropped")
    assert tail is None or ("unwritten-interior" in _kinds(tail.contradicts) and tail.score < 0.5), text


def test_a_read_past_the_end_makes_a_rescue_by_zeroed_outputs_no_uninitialized_accumulator():
    """An unmasked elementwise kernel on a GPU (H200): memcheck sees reads past the inputs' end, and zeroing the
    output (whose memory those reads may land in) rights the values; the accumulator is not the story."""
    assert _ranked("zeroed-rescues", "oob", "oob-wide", "tail-errors")[0] == "edge-guard"
    assert _ranked("zeroed-rescues")[0] == "uninitialized-accumulator"


def test_an_in_place_update_left_as_it_was_below_one_block_is_a_dropped_tail_not_a_missing_guard(tmp_path):
    """As a GPU shows an optimizer step whose grid rounds down (no access checks there): below one block nothing
    runs and the parameters come back unchanged, above it the tail keeps its old values, which no poison marks (the
    output is the input, updated in place). A missing guard would still compute the small sizes."""
    diag = debug(spec_of.sgd_grid_rounds_down, budget=40, out_dir=tmp_path, repro=False, maps=False,
                 interpreter_checks=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "tail-tile-dropped", text
    assert {"noop", "edge-pattern"} <= _kinds(diag.top.supports), text
    edge = _cause(diag, "edge-guard")
    assert edge is None or ("noop" in _kinds(edge.contradicts) and edge.score < 0.5), text


def test_a_clean_memcheck_of_a_failing_ragged_size_is_the_gpus_evidence_that_no_guard_is_missing(tmp_path,
                                                                                                 monkeypatch):
    """On a GPU there are no interpreter checks: compute-sanitizer's memcheck on the case the probes ran on, run to
    its end with no finding, says the same thing, that the tail is never visited (a missing guard reads past it)."""
    import kcheck.sanitize
    from kcheck._device import DeviceInfo
    from kcheck.sanitize._run import SanitizeReport, ToolRun

    asked = []

    def fake_sanitize(spec, *, cases=None, **kw):
        asked.extend(c.id for c in cases or [])
        return SanitizeReport(spec.name, [ToolRun("memcheck", "clean", cases=[c.id for c in cases or []])])

    monkeypatch.setattr(kcheck.sanitize, "sanitize", fake_sanitize)
    gpu = DeviceInfo("cuda", "a GPU", 2**34, 2**34, (9, 0), 132, False)
    spec = spec_of.grid_rounds_down
    report = kcheck.check(spec, large=False, interpreter_checks=False).specs[0]
    diag = debug(spec, report=report, budget=60, out_dir=tmp_path, device=gpu, repro=False, maps=False,
                 interpreter_checks=False)
    text = format_diagnosis(diag)
    assert asked and asked[0] == diag.minimal_case, (asked, text)
    clean = [o for o in diag.observations if o.kind == "edge-accesses-clean"]
    assert clean and "memcheck" in clean[0].text, text
    assert diag.top is not None and diag.top.key == "tail-tile-dropped", text


def test_the_transposed_reference_probe_is_not_run_where_the_reference_barely_changes_within_the_tolerance():
    """An instance norm on arange rows: each row (and each column) normalizes to the same values, so the reference
    of the input transposed differs from the plain one only through the eps (about 1e-6, under fp32's 1e-5): a
    kernel with a cancellation error near the tolerance "matched" it on a GPU and was called a transposition."""
    from kcheck.diagnose._sweep import _with, transpose_invariant

    spec = spec_of.instance_norm_rows
    case = next(c for c in kcheck.matrix(spec, patterns=["arange"]) if c.pattern == "arange")
    case = _with(case, {"B": 2, "C": 8, "L": 8}, spec)
    assert transpose_invariant(spec, case, 0)
    other = spec_of.stride_square_only  # x * 2: the transposed input's reference is another matrix
    square = next(c for c in kcheck.matrix(other, patterns=["randn"]) if c.pattern == "randn")
    assert not transpose_invariant(other, _with(square, {"M": 16, "N": 16}, other), 0)


def test_fp32_randn_cases_wrong_far_beyond_rounding_contradict_a_cancellation():
    """A column max merged without an atomic on a GPU: its fp32 randn cases are grossly wrong, and one fp16
    large-mean case beside them is beyond the same-precision baseline. A formula that cancels is right on randn
    data; the large-mean case alone named it (0.8) over the lost update."""
    alone = next(c for c in _causes("large-mean-baseline", "reduces", "gross") if c.key == "cancellation")
    assert alone.score >= 0.5 and not alone.contradicts  # what a large-mean baseline says, on its own
    both = _causes("large-mean-baseline", "wide-precision-gross", "reduces", "gross")
    cause = next(c for c in both if c.key == "cancellation")
    assert cause.score < 0.5 and "wide-precision-gross" in _kinds(cause.contradicts), cause


def test_nan_only_in_non_contiguous_cases_is_the_padding_read_not_a_zero_denominator():
    """kcheck pads strided views with NaN: a kernel that takes its rows as contiguous gets NaN only there."""
    spec = spec_of.rows_read_flat
    report = kcheck.check(spec, large=False).specs[0]
    ev = Evidence(spec, report, [r for r in report.cases if not r.ok])
    facts = Facts(ev)
    assert "nonfinite-strided" in _kinds(facts.observations), facts.observations
    # NaN the nonfinite pattern put in the inputs says nothing about the padding (a GPU saw one such case alone)
    nan_inputs = [dataclasses.replace(r, case=dataclasses.replace(r.case, pattern="nonfinite"))
                  for r in report.cases if not r.ok and r.case.layout != "contiguous"][:1]
    assert nan_inputs
    only = dataclasses.replace(report, cases=[r for r in report.cases if r.ok] + nan_inputs)
    assert "nonfinite-strided" not in _kinds(Facts(Evidence(spec, only, nan_inputs)).observations)
    causes = diagnose(ev, facts)
    div = next((c for c in causes if c.key == "division-by-zero"), None)
    assert div is None or ("nonfinite-strided" in _kinds(div.contradicts) and div.score < 0.5), causes
    # the launcher that raises on most strided inputs and reads the padding where its view succeeds: the exception
    # is the story, not a zero denominator guessed from NaN on one-element rows
    causes = _causes("raises", "nonfinite-short", "nonfinite-strided", "gross", "vector-operand")
    div = next(c for c in causes if c.key == "division-by-zero")
    assert div.score < 0.5 and "nonfinite-strided" in _kinds(div.contradicts), causes


def test_the_probes_run_on_a_smaller_failing_case_when_the_most_severe_one_is_too_large_to_probe():
    """A race that turns to NaN only in the largest case: probing nothing (the case is past what a probe may run)
    left the debugger without its repeats; a smaller case that fails too is probed instead."""
    spec = spec_of.rows_read_flat
    report = kcheck.check(spec, large=False).specs[0]
    failing = [r for r in report.cases if not r.ok]
    assert len(failing) >= 2
    big = max(failing, key=lambda r: case_elements(spec, r.case))
    small = [r for r in failing if case_elements(spec, r.case) < case_elements(spec, big.case)]
    assert small
    big = dataclasses.replace(big, status=Status.CRASHED)  # the most severe kind, and the largest case
    ev = Evidence(spec, report, [big, *small])
    assert probe_case(ev) == big.case  # without a limit: the most severe, whatever its size
    ev = Evidence(spec, report, [big, *small])
    limit = max(case_elements(spec, r.case) for r in small)
    case = probe_case(ev, max_elements=limit)
    assert case is not None and case != big.case and case_elements(spec, case) <= limit
    ev = Evidence(spec, report, [big])
    assert probe_case(ev, max_elements=limit) == big.case  # none fits: the note says so, as before


def test_a_zeroed_run_that_passed_says_nothing_when_the_failure_does_not_come_back_on_the_same_inputs():
    """A column max merged with a plain load/max/store on a GPU: wrong past one block, the smallest failing case
    passed when run again, and passed once more with its outputs zeroed. The zeroed pass was the same luck as the
    repeat: the poison is the same at every run, so a kernel that reads it fails every run."""
    causes = _causes("zeroed-rescues", "flaky", "reduces", "past-one-block", "gross", "wide-precision-gross")
    assert causes[0].key == "missing-atomic", causes
    acc = next(c for c in causes if c.key == "uninitialized-accumulator")
    assert acc.score < 0.5 and "flaky" in _kinds(acc.contradicts), causes


def _amax_ref(x):
    if x.numel() == 0:
        return x.new_zeros(())
    else:
        return x.abs().amax()


def _var_ref(x):
    return torch.var_mean(x, -1)[0]


def _lse_ref(x):
    lse = torch.logsumexp(x, -1)
    return lse


def test_the_operation_the_advice_is_worded_for_is_read_from_whole_words():
    """An absmax whose reference has an ``else`` was advised as a log-sum-exp ("lse" inside "else")."""
    from types import SimpleNamespace

    from kcheck.diagnose._rules import _op

    def op(ref, name="k"):
        return _op(SimpleNamespace(spec=SimpleNamespace(name=name, kernel=ref, reference=ref)))  # type: ignore[arg-type]

    assert op(_amax_ref, "fp8_amax") == "reduction"
    assert op(_var_ref) == "variance"
    assert op(_lse_ref) == "log-sum-exp"
    assert op(_amax_ref, "running_var_update") == "variance"


def test_a_clean_memcheck_of_a_strided_case_is_no_evidence_that_the_accesses_stay_in_bounds():
    """A strided view's rows are padded inside one allocation: a load past a row's end reads the padding, which
    memcheck cannot tell from the row. Seen on the H200: a load without its mask, memcheck clean on a strided case,
    ranked a dropped tail."""
    spec = spec_of.grid_rounds_down
    report = kcheck.check(spec, large=False, interpreter_checks=False).specs[0]
    ev = Evidence(spec, report, [r for r in report.cases if not r.ok])
    ev.base = base_case(spec, report)
    sweep_sizes(Prober(spec, detect(), 60), ev, ["N"])
    probe_case(ev)
    assert ev.minimal is not None and ev.minimal.case.layout == "contiguous"
    ev.memcheck_clean = ev.minimal
    assert "edge-accesses-clean" in _kinds(Facts(ev).observations)
    strided = dataclasses.replace(ev.minimal.case, layout="strided")
    ev.memcheck_clean = dataclasses.replace(ev.minimal, case=strided)
    assert "edge-accesses-clean" not in _kinds(Facts(ev).observations)


@pytest.mark.interpreter  # the interpreter's bounds checks are the evidence
def test_a_row_bound_one_too_wide_reads_one_whole_row_past_the_end_an_off_by_one_not_a_missing_guard(tmp_path):
    """A [M, 32] tensor read with rows <= M: the out-of-bounds lanes start right at the tensor's end and are one row
    (32 lanes), not one element; a missing row mask would read up to a block of rows past it."""
    diag = debug(spec_of.row_mask_one_too_wide, budget=40, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "off-by-one-mask", text
    assert "oob-single-lane" in _kinds(diag.top.supports), text


def test_one_row_just_past_a_2d_tensors_end_is_one_element_past_and_a_block_of_rows_is_not():
    """The interpreter's messages: one row of a [512, 64] tensor read right at its end, or 28 bytes past it when its
    rows are padded apart (the last row lacks its padding), is a bound off by one; two rows, a 1-D tensor's tail, or
    a start farther than a row past the end are not."""
    from kcheck._findings import Finding
    from kcheck.diagnose._observe import one_element_past

    def past(text: str) -> bool:
        return one_element_past(Finding("interpreter", "out-of-bounds", "error", text))

    at_end = ("out-of-bounds read of 4 bytes at 0x10 in lane (22, 0) of program (15,0,0): 1 bytes after tensor 'v' "
              "(131072 bytes, float32[512, 64]), the access starting right at its end; 64 of 4096 lanes out of bounds")
    padded = at_end.replace("(131072 bytes", "(145380 bytes").replace(
        "the access starting right at its end", "the access starting 28 bytes past its end")
    assert past(at_end) and past(padded)
    assert not past(at_end.replace("64 of 4096", "128 of 4096"))
    assert not past(at_end.replace("float32[512, 64]", "float32[32768]"))
    assert not past(padded.replace("28 bytes past", "256 bytes past"))


def test_memcheck_records_of_one_row_just_past_a_2d_tensors_end_are_one_element_past():
    """A segment bound ``rows <= end`` reads the row just past x [N, D] whole (round 25's segment max): the
    interpreter's rule above calls it one element past, and memcheck's records, 1 to 4 D - 3 bytes after the
    allocation, read as many lanes (H100: edge-guard 0.65). The allocation's size names the tensor (the caching
    allocator is off under compute-sanitizer), so its row is known: within one row is a bound off by one; two rows,
    a 1-D tensor's tail or an allocation no tensor of the case fills are not."""
    from kcheck._findings import Finding, deduplicate
    from kcheck.diagnose._observe import one_element_past, row_bytes_of

    spec = kcheck.Spec(name="seg", kernel=torch.neg, reference=torch.neg, inputs=[kcheck.Tensor("N", "D")],
                       dims={"N": kcheck.Dim(nominal=40), "D": kcheck.Dim(nominal=64)}, dtypes=["fp32"])
    case = kcheck.matrix(spec)[0]
    n, d = case.sizes["N"], case.sizes["D"]

    def rec(distance: int, allocation: int) -> Finding:
        return Finding("memcheck", "out-of-bounds", "error", "Invalid __global__ read of size 4 bytes", file="k.py",
                       line=29, size=4, distance=distance, allocation_size=allocation, cases=[case.id])

    size = n * d * 4
    row = row_bytes_of(spec, case, size)
    assert row == 4 * d
    one_row = deduplicate([rec(1, size), rec(4 * d - 3, size), rec(129, size)])[0]
    assert one_element_past(one_row, row)
    assert not one_element_past(one_row)  # without the row: many lanes, as before
    two_rows = deduplicate([rec(1, size), rec(8 * d - 3, size)])[0]
    assert not one_element_past(two_rows, row)
    assert row_bytes_of(spec, case, size + 512) is None  # no tensor of the case fills it (a padded view)
    flat = kcheck.Spec(name="flat", kernel=torch.neg, reference=torch.neg, inputs=[kcheck.Tensor("N")],
                       dims={"N": kcheck.Dim(nominal=256)}, dtypes=["fp32"])
    assert row_bytes_of(flat, kcheck.matrix(flat)[0], 256 * 4) is None  # a 1-D tensor has no row


# -- held-out round 15's H200 confusions (rules changed after the round was scored) ---------------------------------


def test_an_output_never_written_only_past_2_31_elements_is_an_int32_bound_not_a_no_op():
    """A flat kernel whose mask is ``offs < M * N`` with M and N int32: the product wraps negative past 2**31
    elements and no lane stores; every smaller case passes, so the kernel computes (H200: no-op 0.97)."""
    causes = _causes("never-written", "large-only", "unwritten", "gross", "vector-operand")
    assert causes[0].key == "int32-overflow", causes
    noop = next(c for c in causes if c.key == "no-op")
    assert noop.score < 0.5 and "large-only" in _kinds(noop.contradicts), causes
    assert _ranked("never-written", "unwritten", "gross")[0] == "no-op"  # never written at every size: a no-op


def test_runs_that_differ_grossly_contradict_an_operand_read_on_the_wrong_axis():
    """A weight gradient summed over row blocks with a plain load and store: runs differ by 1e7 ULP, right up to one
    block, and one run with gamma at ones passed (luck of the timing). A read on the wrong axis is wrong the same way
    every run (H200: wrong-axis 0.93)."""
    seen = ("nondeterministic", "vector-ones-rescues", "vector-operand", "past-one-block", "reduces", "gross")
    causes = _causes(*seen)
    assert causes[0].key == "missing-atomic", causes
    axis = next(c for c in causes if c.key == "wrong-axis")
    assert axis.score < 0.5 and "nondeterministic" in _kinds(axis.contradicts), causes
    assert _ranked("vector-ones-rescues", "vector-operand", "gross")[0] == "wrong-axis"


def test_a_gradient_that_fails_alone_and_is_smaller_than_the_inputs_reduces():
    """The forward keeps the shape, the gradient of the per-channel gain sums over the rows: when only that
    gradient fails, partial sums of several programs meet in it, and runs that differ there are a lost partial
    result, not programs reading each other's output."""
    from kcheck.diagnose._observe import Facts

    spec = spec_of.gain_grad_lost_rows
    report = kcheck.check(spec, tier="quick", large=False).specs[0]
    failing = [r for r in report.cases if not r.ok]
    assert failing and all(c.passed == (c.numel != r.case.sizes["N"]) for r in failing for c in r.comparisons)
    ev = Evidence(spec, report, failing)
    ev.minimal = failing[0]
    kinds = _kinds(Facts(ev).observations)
    assert "reduces" in kinds, kinds
    ranked, extras = _ranked_extras(spec, "nondeterministic", "past-one-block", "gross", *kinds)
    assert ranked[0] == "missing-atomic" and "differs-without-reduction" not in extras, ranked


def test_no_element_is_read_past_when_the_reference_uses_none_of_the_input():
    """An explained variance at one element per row: the variances are 0 whatever the values, the reference uses no
    element, and raising them all by 1000 showed the kernel's cancellation, not a bound one too far (H200:
    off-by-one-mask 0.88)."""
    from types import SimpleNamespace

    from kcheck.diagnose._probe import ignored_region

    def explained_variance(r, v):
        return 1.0 - (r - v).var(-1, unbiased=False) / (r.var(-1, unbiased=False) + 1e-8)

    spec = SimpleNamespace(reference=explained_variance)
    one = torch.randn(16, 1, dtype=torch.float64)
    assert ignored_region(spec, [one, one + 0.5], 0, {}, "boundary") is None  # type: ignore[arg-type]
    window = SimpleNamespace(reference=lambda r, v: explained_variance(r[:, :4], v[:, :4]))
    wide = torch.randn(16, 8, dtype=torch.float64)
    near = ignored_region(window, [wide, wide + torch.randn(16, 8, dtype=torch.float64)], 0, {}, "boundary")  # type: ignore[arg-type]
    assert near is not None and near.sum(-1).tolist() == [1] * 16


def _row_sum_fp16_off(x: torch.Tensor) -> torch.Tensor:
    return x.sum(-1) * (1.5 if x.dtype == torch.float16 else 1.0)


def test_fp32_failures_past_2_24_terms_of_a_reduction_are_the_low_precision_accumulator_too():
    """Frame energies whose running sum of squares is kept in the input's dtype: the fp16 cases fail, and so does an
    fp32 case of 2**26 terms a row, where an fp32 running sum loses whole units (H200: that fp32 case was taken as
    "fp32 wrong far beyond rounding", the fp16 infinities on large data as an exp overflow, 0.9)."""
    spec = kcheck.Spec(name="row_sum_fp16_off", kernel=_row_sum_fp16_off, reference=lambda x: x.sum(-1),
                       inputs=[kcheck.Tensor("M", "N")], dims={"M": kcheck.Dim(nominal=8), "N": kcheck.Dim(nominal=64)},
                       reduce=["N"], dtypes=["fp32", "fp16"], patterns=["randn"], layouts=("contiguous",), seeds=1)
    report = kcheck.check(spec, tier="quick", large=False).specs[0]
    failing = [r for r in report.cases if not r.ok]
    assert failing and all(r.case.precision == "fp16" for r in failing)

    def as_fp32(n: int) -> list:
        r = failing[0]
        return [dataclasses.replace(r, case=dataclasses.replace(r.case, precision="fp32",
                                                                dims=(("M", r.case.sizes["M"]), ("N", n))))]

    long = Evidence(spec, report, failing + as_fp32(2**26))
    kinds = _kinds(Facts(long).observations)
    assert "low-precision-only" in kinds and "wide-precision-gross" not in kinds, kinds
    short = Evidence(spec, report, failing + as_fp32(4096))
    kinds = _kinds(Facts(short).observations)
    assert "low-precision-only" not in kinds and "wide-precision-gross" in kinds, kinds


def _log_abs_missing(x: torch.Tensor) -> torch.Tensor:
    return torch.log(x)


def test_nan_on_randn_past_2_26_elements_is_chance_not_ordinary_data():
    """A smoother whose eps was dropped gives NaN on a randn case of 2**31 elements, where values near zero occur by
    chance: that did not contradict a zero denominator any less than NaN on a small randn case (H200: tolerance
    0.3 over division-by-zero 0.2)."""
    spec = kcheck.Spec(name="log_abs_missing", kernel=_log_abs_missing, reference=lambda x: torch.log(x.abs()),
                       inputs=[kcheck.Tensor("M", "N")], dims={"M": kcheck.Dim(nominal=8), "N": kcheck.Dim(nominal=64)},
                       dtypes=["fp32"], patterns=["randn"], layouts=("contiguous",), seeds=1)
    report = kcheck.check(spec, tier="quick", large=False).specs[0]
    failing = [r for r in report.cases if not r.ok]
    assert failing
    assert "nonfinite-randn" in _kinds(Facts(Evidence(spec, report, failing)).observations)
    huge = [dataclasses.replace(r, case=dataclasses.replace(r.case, dims=(("M", 64), ("N", 2**25)))) for r in failing]
    only = dataclasses.replace(report, cases=[r for r in report.cases if r.ok] + huge)
    assert "nonfinite-randn" not in _kinds(Facts(Evidence(spec, only, huge)).observations)


def _transposed_double(x: torch.Tensor) -> torch.Tensor:
    m, n = x.shape  # rows read with a stride of m instead of n: right only where the matrix is square
    idx = (torch.arange(m)[:, None] * m + torch.arange(n)[None, :]) % max(x.numel(), 1)
    return x.reshape(-1)[idx] * 2


def test_passing_one_square_size_is_not_passing_every_square_shape():
    """A confusion matrix counted with a plain load, +1 and store: counts are lost wherever two samples of a block
    fall in one cell, and the only square case of the matrix (129 x 129, in two precisions) happened to pass. One
    square size is a single point; ranked index-transposition 0.8 over the write-write races (round 16, CPU)."""
    spec = kcheck.Spec(name="transposed_double", kernel=_transposed_double, reference=lambda x: x * 2,
                       inputs=[kcheck.Tensor("M", "N")],
                       dims={"M": kcheck.Dim(nominal=32), "N": kcheck.Dim(nominal=32)},
                       dtypes=["fp32"], patterns=["randn"], layouts=("contiguous",), seeds=1)
    report = kcheck.check(spec, tier="default", large=False).specs[0]
    failing = [r for r in report.cases if not r.ok]
    square = sorted({r.case.sizes["M"] for r in report.cases if r.case.sizes["M"] == r.case.sizes["N"] > 1})
    assert failing and len(square) >= 2, square
    assert "square-only" in _kinds(Facts(Evidence(spec, report, failing)).observations)
    one = dataclasses.replace(report, cases=[r for r in report.cases if r.case.sizes["M"] != r.case.sizes["N"]
                                             or r.case.sizes["M"] in (1, square[0])])
    assert "square-only" not in _kinds(Facts(Evidence(spec, one, failing)).observations)


def test_non_contiguous_failures_are_no_stride_assumption_among_1d_tensors_or_beside_accesses_out_of_bounds():
    """An in-place store without its mask on a 1-D tensor: on a GPU its stray writes land in memory no case checks,
    except once, where the 1-D input started one element into its buffer (kcheck's non-contiguous 1-D layout);
    memcheck saw the writes out of bounds. That was a stride assumption at 0.9 (H100); a 1-D tensor has no row stride,
    and padded rows keep a kernel that assumes them contiguous inside the buffer."""
    seen = ("layout-only", "oob", "oob-wide", "gross")
    ranked, kinds = _ranked_extras(spec_of.grid_rounds_down, *seen)  # x [N]
    assert ranked[0] == "edge-guard" and "stride-assumption" not in ranked, ranked
    assert "offset-only" in kinds and "layout-only" not in kinds
    ranked, kinds = _ranked_extras(spec_of.stride_assumed, *seen)  # x [M, N]: rows padded, and out of bounds
    assert ranked[0] == "edge-guard" and "stride-assumption" not in ranked, ranked
    assert "layout-oob" in kinds
    ranked, kinds = _ranked_extras(spec_of.stride_assumed, "layout-only", "gross")  # in bounds: a stride assumed
    assert ranked[0] == "stride-assumption" and "layout-only" in kinds
    ranked, kinds = _ranked_extras(spec_of.grid_rounds_down, "layout-only", "gross")
    assert "stride-assumption" not in ranked and "offset-only" in kinds


def _record_sanitizer(monkeypatch) -> dict[str, list[str]]:
    """compute-sanitizer replaced by a fake that finds nothing and records which cases each tool was asked to run."""
    import kcheck.sanitize
    from kcheck.sanitize._run import SanitizeReport, ToolRun

    asked: dict[str, list[str]] = {}

    def fake_sanitize(spec, *, tools=kcheck.sanitize.TOOLS, cases=None, **kw):
        for t in tools:
            asked[t] = [c.id for c in cases or []]
        return SanitizeReport(spec.name, [ToolRun(t, "clean", cases=[c.id for c in cases or []]) for t in tools])

    monkeypatch.setattr(kcheck.sanitize, "sanitize", fake_sanitize)
    return asked


@pytest.mark.parametrize("shares", [True, False])
def test_barrier_tools_run_on_the_smallest_failing_case_of_a_kernel_that_shares_memory(monkeypatch, shares):
    """A CUDA C min-max stretch with its first barrier missing failed most severely (NaN) at 128256 rows of one
    element: the probes and memcheck ran there, and racecheck, instrumenting every shared access of 128256 blocks,
    found nothing in time, so the race was called a dropped tail (H100). Any one block shows a missing barrier:
    racecheck and synccheck run on the failing case of fewest elements. Kernels without shared memory keep every
    tool on the one case."""
    import kcheck.sanitize
    from kcheck._device import DeviceInfo
    from kcheck.backends import backend_of
    from kcheck.diagnose import _sanitize_case
    from kcheck.diagnose._sweep import case_elements

    asked = _record_sanitizer(monkeypatch)
    spec = spec_of.wrong_constant
    monkeypatch.setattr(type(backend_of(spec.kernel)), "shares_memory", lambda self, fn: shares)
    report = kcheck.check(spec, large=False, interpreter_checks=False).specs[0]
    failing = [r for r in report.cases if not r.ok]
    ev = Evidence(spec, report, failing)
    big = max(failing, key=lambda r: case_elements(spec, r.case)).case
    small = min(failing, key=lambda r: (case_elements(spec, r.case), r.case.id)).case
    assert case_elements(spec, small) < case_elements(spec, big)
    gpu = DeviceInfo("cuda", "a GPU", 2**34, 2**34, (9, 0), 132, False)
    _sanitize_case(spec, ev, big, gpu, 60.0)
    assert set(asked) == set(kcheck.sanitize.TOOLS)
    assert asked["memcheck"] == asked["initcheck"] == [big.id]
    assert asked["racecheck"] == asked["synccheck"] == ([small.id] if shares else [big.id])


def test_barrier_tools_skip_a_smallest_case_where_the_kernel_never_ran(monkeypatch):
    """A CUDA C box blur with its barrier missing (round 20, H200): its smallest failing case had N = 0, an error
    because the reference cannot take an empty row, where the launcher launches nothing. racecheck ran there and saw
    nothing, and the race ranked missing-atomic 0.45. The barrier tools take the smallest case the kernel ran on."""
    import kcheck.sanitize
    from kcheck._device import DeviceInfo
    from kcheck._results import CaseResult, Reason, ReasonKind
    from kcheck.backends import backend_of
    from kcheck.diagnose import _sanitize_case
    from kcheck.diagnose._sweep import case_elements

    asked = _record_sanitizer(monkeypatch)
    spec = spec_of.wrong_constant
    monkeypatch.setattr(type(backend_of(spec.kernel)), "shares_memory", lambda self, fn: True)
    report = kcheck.check(spec, large=False, interpreter_checks=False).specs[0]
    failing = [r for r in report.cases if not r.ok]
    small = min(failing, key=lambda r: (case_elements(spec, r.case), r.case.id)).case
    big = max(failing, key=lambda r: case_elements(spec, r.case)).case
    dim = next(iter(small.sizes))
    no_data = dataclasses.replace(small, dims=tuple((d, 0 if d == dim else v) for d, v in small.dims))
    raised = CaseResult(no_data, Status.ERROR, reasons=[Reason("the reference raised RuntimeError: empty input",
                                                                 ReasonKind.REFERENCE_RAISED)])
    ev = Evidence(spec, report, [raised, *failing])
    gpu = DeviceInfo("cuda", "a GPU", 2**34, 2**34, (9, 0), 132, False)
    _sanitize_case(spec, ev, big, gpu, 60.0)
    assert asked["racecheck"] == asked["synccheck"] == [small.id], asked


def test_nan_from_all_zero_inputs_is_no_low_precision_accumulator():
    """An elementwise (a - b) / (a + b) without its eps: NaN on all-zero inputs, and fp16 cases within the table
    but beyond the same-precision baseline (the reference's eps against small magnitudes). That was a low-precision
    accumulator (H100); a sum of zeros is zero in any precision."""
    assert _ranked("baseline-only", "nonfinite-zero", "nonfinite-on-zeros", "gross")[0] == "division-by-zero"
    # NaN on a constant row alone may be a narrow sum overflowing: the precision keeps its hallmark
    assert _ranked("baseline-only", "nonfinite-zero", "gross")[0] == "low-precision-accumulation"


def test_the_experiments_budget_stretches_with_the_machines_load(monkeypatch):
    """On a machine running the test suite beside two zoo scorers, a 40 s budget was spent by the size sweep alone
    (230 s of experiments) and the transposed-reference probe never ran: the diagnosis fell to unknown. The budget
    is the experiments' time on an idle machine; the case limits' load factor stretches it."""
    from kcheck.diagnose import _probe

    monkeypatch.setattr(_probe, "load_factor", lambda: 4.0)
    with _probe.Prober(spec_of.wrong_constant, detect(), 10.0) as prober:
        assert 35.0 < prober.left() <= 40.0
    monkeypatch.setattr(_probe, "load_factor", lambda: 1.0)
    with _probe.Prober(spec_of.wrong_constant, detect(), 10.0) as prober:
        assert 5.0 < prober.left() <= 10.0


def test_an_input_a_probe_sets_to_ones_keeps_its_gradient_checked(tmp_path):
    """A gain whose backward adds its gradient into a buffer it never zeroed: only gamma's gradient fails (NaN from
    kcheck's poisoned allocations). The probe that sets gamma to ones replaced it with a copy off the gradient's
    path, so the gradient it alone fails was not compared, and the "rescue" made it a wrong axis at 0.93 (round 18's
    learnable swish, on the CPU and the H100). The replaced input now passes its gradient back."""
    diag = debug(spec_of.gain_grad_uninitialized, budget=60, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    ones = [e for e in diag.experiments if e.axis == "input" and e.label == "gamma = ones"]
    assert ones and not ones[0].passed, text
    assert "vector-ones-rescues" not in {o.kind for o in diag.observations}, text
    assert diag.top is not None and diag.top.key != "wrong-axis", text


def test_a_gradient_buffer_never_zeroed_is_an_uninitialized_accumulator(tmp_path):
    """The same gain: the zeroed-outputs probe zeroes what the backward allocates too (autograd runs a backward with
    the torch-function modes cleared, so zeroing the forward's allocations alone left the gradient buffer poisoned,
    the probe failed as the plain case does, and the cause went unnamed)."""
    diag = debug(spec_of.gain_grad_uninitialized, budget=60, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    zeroed = [e for e in diag.experiments if e.axis == "outputs"]
    assert zeroed and zeroed[0].passed, text
    assert diag.top is not None and diag.top.key == "uninitialized-accumulator", text
    assert not any(c.score >= 0.7 for c in diag.causes[1:]), text


def test_nan_that_zeroed_buffers_take_away_is_no_zero_denominator(tmp_path):
    """The same gain on all-zero data too: its gradient is NaN there and at every scale of randn data,
    which is a division by zero's hallmark (0.85 second, behind the right cause, for round 38's LISTA shrinkage,
    whose backward adds into torch.empty). A zero denominator gives NaN whatever the buffers held before; the NaN
    here goes when they are zeroed."""
    diag = debug(spec_of.gain_grad_uninitialized_zeros, budget=60, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "uninitialized-accumulator", text
    division = _cause(diag, "division-by-zero")
    assert division is None or ("zeroed-rescues" in _kinds(division.contradicts) and division.score < 0.7), text


def test_the_zeroed_probe_leaves_no_mode_behind_when_the_backward_raises():
    """The backward's zeroing is a mode entered and left inside one autograd node: a backward that raises leaves
    the mode stack as it was."""
    from torch.utils._python_dispatch import _get_current_dispatch_mode_stack

    class Boom(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            raise RuntimeError("boom")

    spec = dataclasses.replace(spec_of.gain_grad_uninitialized, kernel=lambda x, gamma: Boom.apply(x) * gamma)
    z = zeroed_outputs(spec)
    x, gamma = torch.randn(4, 3, requires_grad=True), torch.randn(3, requires_grad=True)
    out = z.kernel(x, gamma)
    with pytest.raises(RuntimeError, match="boom"):
        torch.autograd.grad(out, [x, gamma], torch.ones_like(out))
    assert _get_current_dispatch_mode_stack() == []
    # and with grad off, the plain call: outputs as the kernel returns them
    with torch.no_grad():
        assert torch.equal(z.kernel(x, gamma), x * 2 * gamma)


def test_failures_past_a_parameters_value_are_a_bound_on_it_not_a_block(tmp_path):
    """A trailing moving average whose window takes one element too many: right while the series is no longer than
    the window (32), wrong past it. 32 looks like one block, and the lost inter-block result was ranked first at
    0.84 (round 18's sliding-window attention, on the CPU and the H100). The threshold is the case's window; the
    deciding experiment runs the largest passing size with a smaller window, which fails: the bound follows the
    parameter."""
    diag = debug(spec_of.trailing_mean_one_wide, budget=60, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    kinds = {o.kind for o in diag.observations}
    assert {"param-threshold", "param-threshold-moves"} <= kinds, text
    assert "past-one-block" not in kinds, text
    assert any(e.axis == "decide" and "window=8" in e.label and not e.passed for e in diag.experiments), text
    assert diag.top is not None and diag.top.key == "off-by-one-mask", text
    assert not any(c.key == "missing-atomic" and c.score >= 0.5 for c in diag.causes), text
    assert "window" in diag.top.next_check, text


def test_nan_computed_in_masked_lanes_is_a_division_by_zero_not_a_dropped_tail(tmp_path):
    """A row mean of |x - y| / (|x| + |y|) whose masked lanes load 0 and compute 0 / 0: NaN at every ragged
    length, every access in bounds. Clean accesses at ragged sizes are a dropped tail's hallmark, and the NaN got
    tail-tile-dropped 0.85 (round 18's SMAPE, on the CPU). A dropped tail computes no NaN; lanes computing on the
    masked load's fill do."""
    diag = debug(spec_of.row_rel_diff_masked_nan, budget=60, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert "nonfinite-edge" in {o.kind for o in diag.observations}, text
    assert diag.top is not None and diag.top.key == "division-by-zero", text
    assert not any(c.score >= 0.5 for c in diag.causes[1:]), text
    assert "tl.where(mask" in diag.top.next_check, text


def test_a_block_size_declared_as_a_mode_is_no_parameter_threshold(tmp_path):
    """A row sum that keeps only its last block's partial sum, its block size a mode (block = 32 or 8): the failures
    start past 32, the mode's value, and move with it, as a window's would; but a block size is a tiling, not a
    bound of the operation, and the lost partial sums stay a lost inter-block result."""
    diag = debug(spec_of.row_sum_block_mode, budget=60, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert "param-threshold" not in {o.kind for o in diag.observations}, text
    assert diag.top is not None and diag.top.key == "missing-atomic", text


def test_a_coefficient_zero_only_in_the_reference_is_a_wrong_constant_not_a_bound(tmp_path):
    """A triangular window with a wrong slope: the reference's first coefficient is 0 and the kernel's is not, so
    raising the element the reference ignores moves the kernel (a read just past a bound, 0.88); yet each output
    reads one input and most elements are wrong in most cases, which no read next to the ignored elements explains
    (round 19's Hann window computed with Hamming's constants, on the CPU)."""
    diag = debug(spec_of.bartlett_wrong_slope, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert "errors-beyond-boundary" in {o.kind for o in diag.observations}, text
    assert diag.top is not None and diag.top.key == "wrong-constant", text
    assert not any(c.key == "off-by-one-mask" and c.score >= 0.5 for c in diag.causes), text


def test_out_of_bounds_lookups_that_follow_the_data_are_an_unclamped_index_not_a_missing_bound(tmp_path):
    """A tone curve read from a table at an index computed from the data, not clamped to the table: out-of-bounds
    reads of many lanes at every size, multiples of the block included. They read as a missing edge guard (0.7,
    confident; round 19's CUDA C tone curve on the H100: edge-guard 0.75). The same shape on zeros stays in bounds:
    the addresses follow the data, which no edge bug's do."""
    diag = debug(spec_of.tone_lut_unclamped, budget=60, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert "oob-data-dependent" in {o.kind for o in diag.observations}, text
    assert diag.top is not None and diag.top.key == "kernel-crash", text
    assert not any(c.score >= 0.5 for c in diag.causes[1:]), text
    assert "clamp or check the index" in diag.top.next_check, text


def test_failures_that_start_where_the_data_first_holds_a_rare_value_are_not_a_blocks_reach(tmp_path):
    """A wrong constant in the branch for |x| >= 3.5: on randn data the failures start at the first size whose data
    holds such a value (N=1024 at seed 0), which reads as right up to one block and wrong past it (missing-atomic 0.78;
    the CUDA C calibration curve of round 22 on the H100, a bin index out of range on rare values: 0.78). The largest
    passing size fails with another seed, twice: the threshold is the data's, and no cause that reads sizes is
    confident."""
    diag = debug(spec_of.soft_clip_rare_branch, budget=120, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert "threshold-follows-data" in _kinds(diag.observations), text
    assert not any(c.score >= 0.5 for c in diag.causes if c.key in {"missing-atomic", "edge-guard", "off-by-one-mask",
                                                                     "tail-tile-dropped"}), text
    atomic = _cause(diag, "missing-atomic")
    assert atomic is None or "threshold-follows-data" in _kinds(atomic.contradicts), text


def test_a_carry_lost_past_one_block_keeps_its_threshold_with_other_seeds(tmp_path):
    """The seeds experiment's other outcome: a prefix sum with no carry passes one block and fails past it whatever
    the seed, so the threshold is the size's and the lost inter-block result stands."""
    diag = debug(spec_of.cumsum_no_carry, budget=60, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert "threshold-holds-seeds" in _kinds(diag.observations), text
    assert "threshold-follows-data" not in _kinds(diag.observations), text
    assert diag.top is not None and diag.top.key == "missing-atomic" and diag.top.score >= 0.7, text


@pytest.mark.interpreter  # the interpreter's race check is the evidence
@pytest.mark.parametrize("name", ["transpose_pairs_on_input", "transpose_pairs_inplace"])
def test_a_transpose_whose_tile_pairs_two_programs_swap_is_a_race_not_a_transposition(tmp_path, name):
    """A square transpose by pairs of tiles where both programs of a pair swap it, so the second swaps it back: on
    arange inputs the off-diagonal tiles hold their own values, which for a transpose are "the values of the
    transposed positions" (index-transposition 0.9, confident; round 22's in-place square transpose on the CPU). Two
    programs storing to the same element of a movement is no wrong stride, which maps elements one to one; nor is a
    movement a lost partial result. Written into the input (declared mutated) and into a copy of it."""
    diag = debug(getattr(spec_of, name), budget=60, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert "movement-written-twice" in _kinds(diag.observations), text
    assert diag.top is not None and diag.top.key == "race" and diag.top.score >= 0.7, text
    assert not any(c.score >= 0.5 for c in diag.causes[1:]), text
    assert "one program" in diag.top.next_check, text


def test_a_missing_tail_guard_stays_out_of_bounds_on_zeros_and_keeps_its_cause(tmp_path):
    """The data experiment's other outcome: a missing tail mask reads past the end on zeros and on ones as on randn,
    so the bound is the shape's and the edge cause stands."""
    diag = debug(spec_of.tail_guard_big_block, budget=60, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert "oob-any-data" in {o.kind for o in diag.observations}, text
    assert diag.top is not None and diag.top.key == "edge-guard", text


@pytest.mark.gpu
def test_on_a_gpu_memcheck_on_other_values_tells_an_unclamped_index_from_a_missing_bound(tmp_path):
    """The data experiment on a GPU, where compute-sanitizer's memcheck says whether the same shape's accesses stay in
    bounds on zeros (a CUDA C table lookup without its clamp)."""
    from debug_specs.cuda_lut import cuda_tone_lut_unclamped

    diag = debug(cuda_tone_lut_unclamped, budget=120, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert "oob-data-dependent" in {o.kind for o in diag.observations}, text
    assert diag.top is not None and diag.top.key == "kernel-crash", text


def test_an_output_that_is_the_reference_times_a_factor_is_a_wrong_constant_however_large_the_factor(tmp_path):
    """Degrees from radians with 360 / pi: every element is twice the expected one, a relative L2 error of 1.0, past
    the 0.7 that keeps permuted and garbage outputs out of the systematic error. No cause's hallmark was seen, and
    index-transposition ranked first (0.4; round 20's mel scale with 2595 in place of 1127, on the CPU). The wrong
    elements share one ratio to the expected ones, which no permutation gives."""
    diag = debug(spec_of.degrees_twice, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert "scaled-output" in {o.kind for o in diag.observations}, text
    assert diag.top is not None and diag.top.key == "wrong-constant" and diag.top.score >= 0.7, text


def test_nan_at_a_few_fp16_randn_elements_beside_nan_on_zeros_is_a_division_by_zero(tmp_path):
    """(a - b) / (a + b) without its guard: all-zero inputs give NaN, and a few fp16 randn elements whose two values
    cancel exactly do too. NaN on randn data contradicted a zero denominator, and nothing ranked (round 20's NDVI,
    on the CPU: unknown). In fp16 alone, at a handful of elements, with fp32 finite, it is exact cancellation."""
    diag = debug(spec_of.norm_diff_unguarded, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert "nonfinite-randn-rare" in {o.kind for o in diag.observations}, text
    assert diag.top is not None and diag.top.key == "division-by-zero" and diag.top.score >= 0.7, text


def _large_failure(spec: kcheck.Spec, rows: int, length: int) -> tuple[Evidence, Facts]:
    """Evidence whose only failure is a past-2**31 case, run for real on this CPU at a stand-in size (``rows`` x
    ``length``, labelled large: a CPU runs no case past 2**31)."""
    from kcheck.run import run_case

    report = kcheck.check(spec, tier="quick", large=False).specs[0]
    assert report.passed
    big = dataclasses.replace(report.cases[0].case, dims=(("M", rows), ("N", length)), axis="large", skip=None,
                              skip_kind=None)
    res = run_case(spec, big, detect())
    assert res.status is Status.FAILED, res.reasons
    report.cases.append(res)
    ev = Evidence(spec, report, [res])
    ev.base = base_case(spec, report)
    return ev, Facts(ev)


def test_a_past_2_31_case_that_fails_for_its_row_length_is_no_int32_overflow(monkeypatch):
    """A row energy in dB from 256 per-thread running fp32 sums, its offsets size_t: only its past-2**31 case fails,
    whose rows are 16.7M elements long, so it ranked int32-overflow 0.93 (round 20's CUDA C row energy on the H200).
    That row length alone, one row, far below 2**31 elements, fails too: the length, not an offset. (Here, on a
    CPU, rows of 2**22 stand in for 16.7M, and the limit on what a CPU experiment may build is raised to hold one.)"""
    from kcheck.diagnose import _decide

    monkeypatch.setattr(_decide, "MAX_ELEMENTS_CPU", 2**22)
    ev, facts = _large_failure(spec_of.row_energy_running_sum, 2, 2**22)
    causes = diagnose(ev, facts)
    assert causes[0].key == "int32-overflow" and causes[0].score >= 0.9  # the trap
    dec = decide(Prober(ev.spec, detect(), 120), ev, facts, causes)
    assert dec is not None and dec.name == "length" and "not an int32 overflow" in dec.settled, dec
    causes = diagnose(ev, Facts(ev))
    assert next(c for c in causes if c.key == "int32-overflow").score < 0.5, causes


def test_a_past_2_31_case_whose_row_length_alone_passes_stays_an_int32_overflow(monkeypatch):
    """The experiment's other outcome: an offset that wraps (at 2**22 elements here, standing in for 2**31) fails
    only with the whole tensor; the same row length alone passes, and int32-overflow keeps its rank."""
    from kcheck.diagnose import _decide

    monkeypatch.setattr(_decide, "MAX_ELEMENTS_CPU", 2**22)
    ev, facts = _large_failure(spec_of.row_energy_offset_wraps, 2, 2**22)
    dec = decide(Prober(ev.spec, detect(), 120), ev, facts, diagnose(ev, facts))
    assert dec is not None and dec.name == "length" and "an offset past 2**31" in dec.settled, dec
    causes = diagnose(ev, Facts(ev))
    assert causes[0].key == "int32-overflow" and causes[0].score >= 0.9, causes


def test_a_per_channel_operand_read_past_its_end_is_no_wrong_constant():
    """A PReLU whose slope is read by column instead of by channel (round 21, training forward, CPU): the wrong
    elements lie in a band of the input's values (x < 0, where the slope applies), a constant's hallmark, and it
    ranked wrong-constant 0.85. The 1-D slope read past its end says an index along the wrong dimension, which no
    coefficient explains."""
    ranked = _causes("value-band", "oob-vector", "vector-operand", "ones-rescues", "gross", "everywhere-wrong",
                     "wide-precision-gross", "rounding-only")
    assert not (ranked[0].key == "wrong-constant" and ranked[0].score >= 0.5), ranked


def test_nan_on_zeros_that_a_per_channel_operand_at_ones_removes_is_a_zero_denominator():
    """Weber contrast (I - Ib) / Ib without its guard for a black background (round 21, CPU): NaN on all-zero inputs
    only, and the per-row background at ones "rescues" it, which ranked wrong-axis 0.93. Ones take the zero
    denominator away; a misplaced operand on zeros computes zeros, not NaN."""
    ranked = _ranked("nonfinite-zero", "nonfinite-on-zeros", "vector-ones-rescues", "vector-operand", "gross")
    assert ranked[0] == "division-by-zero", ranked


@pytest.mark.parametrize("status", ["clean", "errors", "unknown"])
def test_the_data_experiment_reads_memchecks_own_statuses_on_a_gpu(monkeypatch, status):
    """On a GPU the data experiment asks memcheck whether the same shape on zeros stays in bounds. memcheck's run
    says "clean", "errors" (findings) or "unknown" (it did not finish); the experiment first took "findings" for the
    second, so a bound fixed by the shape (out of bounds on zeros too) settled nothing on a GPU."""
    import types

    import kcheck.sanitize
    from kcheck.diagnose import _decide
    from kcheck.run import RunOptions
    from kcheck.sanitize._run import SanitizeReport, ToolRun

    finding = types.SimpleNamespace(kind="out-of-bounds")
    run = ToolRun("memcheck", status, findings=[finding] if status == "errors" else [])
    monkeypatch.setattr(kcheck.sanitize, "sanitize", lambda spec, **kw: SanitizeReport(spec.name, [run]))
    spec = spec_of.wrong_constant
    case = kcheck.matrix(spec, tier="quick")[0]
    prober = types.SimpleNamespace(device=types.SimpleNamespace(is_gpu=True), left=lambda: 60.0,
                                   options=RunOptions(), experiments=[],
                                   run=lambda c, *a, **k: kcheck.CaseResult(c, Status.FAILED))
    ev = Evidence(spec, None, [])  # type: ignore[arg-type]
    said = _decide._in_bounds(prober, ev, _decide._Run(prober, "data", ("edge-guard", "kernel-crash")), case, "zeros")
    assert said is {"clean": True, "errors": False, "unknown": None}[status]


@pytest.mark.parametrize("memcheck_sees_it", [False, True])
def test_an_access_only_the_interpreter_beside_the_gpu_saw_is_not_read_as_following_the_data(monkeypatch,
                                                                                           memcheck_sees_it):
    """A rotation whose source strides are swapped reads out of bounds at every non-square shape; on the H100 only
    the interpreter's cases beside the GPU saw it (round 23). The data experiment reran that case on zeros on the
    GPU, under memcheck, which does not see a read that lands in memory the process owns: "in bounds on zeros",
    so kernel-crash 0.8 from an unclamped index that is no such thing. Now the same case on its own data runs
    first under the GPU's check: when memcheck does not see the access there, the experiment settles nothing;
    when it does, the experiment goes on as before."""
    import types

    import kcheck.sanitize
    from kcheck._findings import Finding
    from kcheck.diagnose import _decide
    from kcheck.run import RunOptions
    from kcheck.sanitize._run import SanitizeReport, ToolRun

    asked = []

    def fake_sanitize(spec, *, cases=None, **kw):  # type: ignore[no-untyped-def]
        (c,) = cases
        asked.append(c)
        seen = memcheck_sees_it and c.pattern == "randn"
        run = ToolRun("memcheck", "errors" if seen else "clean",
                      findings=[types.SimpleNamespace(kind="out-of-bounds")] if seen else [])
        return SanitizeReport(spec.name, [run])

    monkeypatch.setattr(kcheck.sanitize, "sanitize", fake_sanitize)
    spec = spec_of.wrong_constant
    case = dataclasses.replace(next(c for c in kcheck.matrix(spec, tier="quick") if c.pattern == "randn"),
                               interpreted=True)
    oob = Finding(tool="interpreter", kind="out-of-bounds", severity="error", message="out-of-bounds read", file="k.py",
                  line=3)
    failing = [kcheck.CaseResult(case, Status.FAILED, findings=[oob])]
    prober = types.SimpleNamespace(device=types.SimpleNamespace(is_gpu=True), left=lambda: 60.0,
                                   options=RunOptions(), experiments=[],
                                   run=lambda c, *a, **k: kcheck.CaseResult(c, Status.FAILED))
    ev = Evidence(spec, None, failing)  # type: ignore[arg-type]
    dec = _decide._data(prober, ev, None, ("edge-guard", "kernel-crash"))  # type: ignore[arg-type]
    assert dec is not None and asked and not any(c.interpreted for c in asked)
    kinds = _kinds(dec.observations)
    if memcheck_sees_it:
        assert "oob-data-dependent" in kinds and [c.pattern for c in asked] == ["randn", "zeros"], (kinds, asked)
    else:
        assert not kinds and dec.settled == "" and [c.pattern for c in asked] == ["randn"], (kinds, asked)


def test_one_wrong_output_that_holds_its_transposed_positions_value_is_no_transposition():
    """Round 23's in-place 3x3 erosion (a race: tiles read halos their neighbours had eroded) ranked
    index-transposition 0.9 on the H100: of the wrong outputs decoded on arange inputs, one held the value expected
    at its transposed position, next to the diagonal where a 3x3 minimum of arange finds it by chance. The hallmark
    needs two such outputs at least, and most of those decoded."""
    from kcheck.diagnose._sweep import Decoded

    spec = spec_of.erode_in_place
    report = kcheck.check(spec, tier="quick", large=False, cases="H=48,W=40,fp32,randn").specs[0]
    ev = Evidence(spec, report, [r for r in report.cases if not r.ok])
    coincidence = Decoded((32, 31), 1021.0, 900.0, (31, 32))
    others = [Decoded((i, 5), 7.0, 9.0, None) for i in range(4)]
    ev.arange = [coincidence, *others]
    assert "arange-transposed" not in _kinds(Facts(ev).observations)
    ev.arange = [coincidence, Decoded((5, 2), 82.0, 50.0, (2, 5)), *others[:1]]
    assert "arange-transposed" in _kinds(Facts(ev).observations)


def test_a_flat_launch_whose_grid_rounds_down_leaves_a_tail_not_interior_tiles(tmp_path):
    """A 2-D update launched flat over its elements with `n // BLOCK` programs (round 23's wavelet threshold, H100:
    index-transposition 0.6): the elements never written are the flat tail, rows past some point and part of the
    row before them, which no row or column pattern named, so they read as tiles inside the output no program
    wrote. The comparison now names the tail of the tensor read flat, past the last full block of 1024."""
    diag = debug(spec_of.gain_flat_grid_floor, budget=60, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert "unwritten-interior" not in _kinds(diag.observations), text
    assert diag.top is not None and diag.top.key == "tail-tile-dropped" and diag.top.score >= 0.7, text
    assert not any(c.score >= 0.5 for c in diag.causes[1:]), text


def test_memchecks_read_past_a_per_channel_operand_is_seen_as_the_interpreters_is():
    """PReLU with its slope read by row (round 21, H100): memcheck's out-of-bounds reads of the 1-D slope ranked
    edge-guard 0.7, where the interpreter's same finding on a CPU says the operand is indexed along a longer
    dimension. memcheck's findings come from the one case it ran on, not from a case's own findings: the
    allocation it names is measured against that case's sizes."""
    from dataclasses import replace as _replace

    from kcheck._findings import Finding

    spec = spec_of.bias_wrong_axis
    report = kcheck.check(spec, tier="quick", large=False).specs[0]
    ev = Evidence(spec, report, [r for r in report.cases if not r.ok])
    case = _replace(report.cases[0].case, dims=(("M", 64), ("N", 32)))
    read = Finding("memcheck", "out-of-bounds", "error", "Invalid __global__ read of size 4 bytes", file="k.py",
                   line=56, distance=4, allocation_size=32 * 4)
    ev.sanitizer, ev.sanitized = [read], case
    kinds = _kinds(Facts(ev).observations)
    assert "oob-vector" in kinds, kinds
    # the same read of a 2-D input's allocation is no per-channel operand's
    ev.sanitizer = [_replace(read, allocation_size=64 * 32 * 4)]
    assert "oob-vector" not in _kinds(Facts(ev).observations)


def test_nan_on_constant_rows_with_all_zero_rows_finite_is_a_cancellation_not_a_zero_denominator():
    """A volatility from E[x^2] - E[x]^2 (round 21, H100): NaN on constant rows, where the two terms are equal and
    their rounded difference falls below zero under the root, ranked division-by-zero 0.85. A zero spread or sum is
    zero on all-zero rows too, and there the kernel is finite."""
    ev, _ = _evidence(spec_of.row_spread_one_pass)
    facts = Facts(ev)
    assert {"nonfinite-zero", "nonfinite-constant-only"} <= _kinds(facts.observations), _kinds(facts.observations)
    causes = diagnose(ev, facts)
    assert causes[0].key == "cancellation" and causes[0].score >= 0.7, causes
    assert all(c.score < 0.5 for c in causes if c.key == "division-by-zero"), causes


def test_nan_on_all_zero_rows_too_stays_a_zero_denominator():
    """The other side: a mean divided by a count that is zero on empty masks is NaN on the all-zero rows; the
    constant-only observation must not appear."""
    ev, _ = _evidence(spec_of.masked_mean_zero_count)
    kinds = _kinds(Facts(ev).observations)
    assert "nonfinite-constant-only" not in kinds, kinds


def test_accesses_that_follow_the_data_contradict_a_wrong_stride():
    """The table lookup's out-of-bounds reads land, in the interpreter, wherever the host put other tensors: some runs
    read the output another program writes, and arange decoding then finds values at other positions, which ranked
    index-transposition 0.85 on some runs of the same test. A stride's addresses are fixed by the shape; accesses
    that come back in bounds on other values are an index taken from the data."""
    ranked = _ranked("arange-misplaced", "everywhere-wrong", "ones-rescues", "oob", "oob-wide", "race-between-programs",
                     "race-read-only", "oob-data-dependent", "gross")
    assert ranked[0] == "kernel-crash", ranked


def test_an_access_out_of_bounds_at_the_tiles_origin_is_no_missing_mask(tmp_path):
    """A 2-D mirror whose source strides are swapped, every mask in place (round 23's rotation, H100: edge-guard 0.7):
    its out-of-bounds reads of many lanes read as a missing mask. A missing mask lets through only the lanes past an
    edge; here program (0,0,0) reads its tile's first element (W - 1) rows down, past the end of the tensor. That
    contradicts the edge causes and points at the address formula."""
    diag = debug(spec_of.mirror_strides_swapped, budget=60, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert "oob-at-origin" in _kinds(diag.observations), text
    assert diag.top is not None and diag.top.key == "index-transposition", text
    assert not any(c.score >= 0.7 for c in diag.causes if c.key in ("edge-guard", "off-by-one-mask")), text


def test_a_fixed_dimension_met_among_the_small_sizes_that_pass_is_no_square_only(tmp_path):
    """Points [N, 2] counted into a grid with a plain store (round 24's bilinear splat, CPU: index-transposition 0.8):
    one or two points rarely share a cell, so N = 1 and N = 2 pass and larger N fail. "Right only where N == 2, the
    fixed dimension" read as a tensor right only when square. N = 1 passes too: 2 is one of the small sizes that
    pass, not the one size where the tensor is square."""
    diag = debug(spec_of.splat_count_plain_store, budget=60, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert "square-only" not in _kinds(diag.observations), text
    assert diag.top is not None and diag.top.key == "missing-atomic", text


def test_a_scatter_that_keeps_one_value_per_cell_is_no_movement(tmp_path):
    """A z-buffer keeping each cell's nearest depth with a plain store (round 25's z-buffer splat, H100: race 0.88):
    on arange inputs every expected value is an input's, and the grid has more cells than the point list has values,
    so it read as a movement whose element two programs store (a race). A movement moves each input element
    somewhere; this output holds a few of the points' values. The programs' write-write races on one cell are lost
    updates."""
    diag = debug(spec_of.zbuffer_plain_min, budget=60, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert "movement-written-twice" not in _kinds(diag.observations), text
    assert diag.top is not None and diag.top.key == "missing-atomic", text


def test_wrong_values_with_every_access_in_bounds_beside_reads_past_the_end_are_no_missing_mask(tmp_path):
    """A matrix tiled 2 x 3 with its source indices swapped (round 24's Kronecker product, CPU: edge-guard 0.7):
    where Q > P the row index leaves A, and those reads past its end read as a missing mask. Where Q <= P every
    read is in bounds and the values are still wrong: a missing mask fails by what it reads past an edge, so the
    index is wrong at every size."""
    diag = debug(spec_of.tile_indices_swapped, budget=60, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert "wrong-in-bounds" in _kinds(diag.observations), text
    assert not any(c.score >= 0.7 for c in diag.causes if c.key == "edge-guard"), text
    assert diag.top is not None and diag.top.key == "index-transposition", text


def test_nan_on_randn_that_a_smaller_scale_takes_away_is_an_exp_out_of_range_not_a_cancellation(tmp_path):
    """A kernel regression whose weights are exp(logits) without the row's largest logit subtracted (round 25's,
    H100: cancellation 0.75). Far from every sample the weights underflow and the estimate is 0 / 0: NaN on randn
    data and on constant rows far apart, all-zero data finite. NaN on constant rows alone is a cancellation's; here
    randn has it too, and the same randn data scaled down is finite, which no zero denominator would be."""
    diag = debug(spec_of.kernel_regression_unshifted, budget=20, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    kinds = _kinds(diag.observations)
    assert "nonfinite-constant-only" not in kinds and "nonfinite-shrinks" in kinds, text
    assert diag.top is not None and diag.top.key == "exp-overflow", text
    cancellation = _cause(diag, "cancellation")
    assert cancellation is None or cancellation.score < 0.5, text
    division = _cause(diag, "division-by-zero")
    assert division is None or "nonfinite-shrinks" in _kinds(division.contradicts), text


def test_a_fixed_3x3_matrix_read_transposed_is_an_index_error(tmp_path):
    """A colour matrix a Custom builds (fixed 3x3, near the identity) applied transposed (round 25's homography, CPU:
    wrong-constant 0.65). No size of the Spec is non-square, and every output is off by a fraction, which looks like
    a constant; the reference of the transposed matrix matches the kernel. The Customs that declare their shape get
    that probe as the Tensors do."""
    diag = debug(spec_of.colour_matrix_transposed, budget=20, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "index-transposition", text
    assert "transposed-reference" in _kinds(diag.top.supports) and diag.top.score >= 0.7, text
    constant = _cause(diag, "wrong-constant")
    assert constant is None or constant.score < 0.5, text


def _gains_unguarded(x: torch.Tensor) -> torch.Tensor:
    g = x.mean() if x.numel() else torch.zeros((), dtype=x.dtype, device=x.device)
    return g / x.mean((1, 2))


def _gains_reference(x: torch.Tensor) -> torch.Tensor:
    m = x.sum((1, 2)) / max(x.shape[1] * x.shape[2], 1)
    g = x.sum() / max(x.numel(), 1)
    return torch.where(m != 0, g / m, torch.ones_like(m))


def test_nan_at_an_empty_dimension_is_not_nan_on_randn_data():
    """Gray-world gains, the overall mean over each image's mean without a guard for a zero mean (round 25's, H100:
    division-by-zero 0.45 under kernel-raises 0.5). The images of no pixel (H=0, W=0) give 0 / 0 on randn cases,
    which counted as "NaN on plain randn data" against the zero denominator. An empty mean is 0 / 0 whatever the
    data: those cases say nothing about randn values."""
    spec = kcheck.Spec(name="gains_unguarded", kernel=_gains_unguarded, reference=_gains_reference,
                       inputs=[kcheck.Tensor("N", "H", "W")],
                       dims={"N": kcheck.Dim(nominal=8), "H": kcheck.Dim(nominal=16), "W": kcheck.Dim(nominal=24)},
                       dtypes=["fp32"])
    report = kcheck.check(spec, large=False).specs[0]
    failing = [r for r in report.cases if not r.ok]
    assert any(r.case.pattern == "randn" and 0 in r.case.sizes.values() for r in failing)  # the empty ones fail
    ev = Evidence(spec, report, failing)
    facts = Facts(ev)
    kinds = _kinds(facts.observations)
    assert "nonfinite-randn" not in kinds and "nonfinite-zero" in kinds, kinds
    causes = diagnose(ev, facts)
    assert causes[0].key == "division-by-zero" and causes[0].score >= 0.7, causes[:2]


def test_a_scratch_buffer_the_launcher_never_zeroes_is_an_uninitialized_accumulator(tmp_path):
    """A charge deposit adding into a torch.empty scratch buffer, copied into the output the Spec passes in (round
    26's cloud-in-cell deposit, CPU: division-by-zero 0.86). The scratch held stale values that changed with the size
    and the run (read as a race, or as NaN at ragged sizes). It now comes poisoned, and the zeroed-outputs probe
    zeroes what the launcher allocates too, which rights the values."""
    diag = debug(spec_of.deposit_scratch_empty, budget=20, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "uninitialized-accumulator", text
    assert "zeroed-rescues" in _kinds(diag.top.supports) and diag.top.score >= 0.7, text


def test_a_misaligned_vector_path_that_also_drops_the_remainder_is_misaligned_access():
    """A float4 path taken on rows of 257 bins (round 26's CUDA C spectral subtraction, H200: tail-tile-dropped 0.93
    over misaligned-access 0.92): it leaves the last F mod 4 bins unwritten, past the last whole block, and reads
    the rows after the first off their 16-byte alignment, which crashes. Both are the vector width; a grid that
    rounds down makes no misaligned address."""
    kinds = ("crash", "misaligned", "edge-decided", "edge-pattern", "gross", "partly-written", "tail-errors",
             "unwritten", "unwritten-tail", "vector-operand")
    assert _ranked(*kinds)[0] == "misaligned-access", _causes(*kinds)[:3]


def test_crashes_on_some_data_only_are_an_unclamped_index_not_a_missing_guard(tmp_path):
    """A lookup whose index, taken from the data, is not clamped (round 26's CUDA C histogram back-projection, H200:
    edge-guard 0.75 over kernel-crash 0.6): near indices read past the table, far ones (large data, inf) crash the
    process. The crashes are on those patterns only, while randn data of the same sizes runs: an overrun past an
    edge would crash by the size, whatever the data."""
    diag = debug(spec_of.lut_unclamped, budget=20, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert "crash-follows-data" in _kinds(diag.observations), text
    assert diag.top is not None and diag.top.key == "kernel-crash", text
    # the H200 row's kinds: memcheck's wide records and a tail past the last block beside the crashes
    kinds = ("crash", "crash-illegal-address", "crash-follows-data", "empty-fails", "everywhere-wrong", "gross",
             "nonfinite-randn", "noop-some", "oob", "oob-wide", "partly-written", "rounding-only", "tail-errors",
             "unwritten", "wide-precision-gross")
    assert _ranked(*kinds)[0] == "kernel-crash", _causes(*kinds)[:3]


def test_a_square_input_made_symmetric_rescues_a_reduction_along_the_wrong_axis(tmp_path):
    """A kernel matrix double-centred with its row means taken down the columns (round 27's MDS double centring on
    the CPU: wrong-constant 0.6). Its input is N x N at every size and every output depends on every element, so
    neither "passes on the square shapes only" nor a slice's reach can show the axis; the matrix made symmetric,
    (K + K^T) / 2, for the kernel and the reference alike, takes the failure away."""
    diag = debug(spec_of.double_centre_wrong_axis, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "wrong-axis" and diag.top.score >= 0.7, text
    assert "symmetric-rescues" in _kinds(diag.top.supports), text
    assert "reduction" in diag.top.next_check, text
    constant = _cause(diag, "wrong-constant")
    assert constant is None or constant.score < 0.5, text


def test_a_wrong_constant_on_a_square_input_is_not_rescued_by_symmetry(tmp_path):
    """The control: the same double centring with its row means over N + 1 stays wrong on symmetric data."""
    diag = debug(spec_of.double_centre_constant, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "wrong-constant", text
    assert not any(o.kind == "symmetric-rescues" for c in diag.causes for o in c.supports), text


def test_a_tiled_reduction_along_the_wrong_axis_is_rescued_by_a_small_symmetric_square(tmp_path):
    """Column sums gathered tile by tile with each tile's row sums (round 28's PPMI marginals on the CPU, read after
    its score: index-transposition 0.4 with no hallmark). Square shapes fail too, and the smallest failing case is a
    single row, which has no square of its own: the symmetric probe runs on a 16 x 16 twin (one tile), after that
    twin, as it is, fails on its own."""
    diag = debug(spec_of.column_scale_tiled_wrong_axis, budget=40, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "wrong-axis" and diag.top.score >= 0.7, text
    assert "symmetric-rescues" in _kinds(diag.top.supports), text
    assert any(e.axis == "symmetric" and "control" in e.label for e in diag.experiments), text


def test_a_per_channel_operand_read_past_its_end_by_the_last_tiles_overhang_only_is_an_edge():
    """A pan position per track loaded without its row mask (round 29, H100: wrong-axis 0.75 from "the 1-D operand
    is read past its end"). On a GPU the stray values reach only masked lanes, so no size pattern shows the edge;
    the interpreter's finding does: the first bad lane right at the operand's end and no program's read reaching
    farther past it than the access's width. An operand indexed along a longer dimension has programs wholly past
    its end, far beyond one access."""
    from dataclasses import replace as _replace

    from kcheck._findings import Finding

    spec = spec_of.bias_wrong_axis
    report = kcheck.check(spec, tier="quick", large=False).specs[0]
    failing = [r for r in report.cases if not r.ok]
    base = _replace(report.cases[0], case=_replace(report.cases[0].case, dims=(("M", 64), ("N", 60))))
    read = Finding("interpreter", "out-of-bounds", "error",
                   "out-of-bounds read of 4 bytes at 0x1000 in lane (4,) of program (7,0,0): 1 bytes after tensor "
                   "'b_ptr' (240 bytes, float32[60]), the access starting right at its end; 4 of 8 lanes out of "
                   "bounds", file="k.py", line=25, distance=1, size=4, allocation_size=60 * 4)
    def evidence(finding: Finding) -> Evidence:
        case = _replace(base, findings=[finding])
        return Evidence(spec, _replace(report, cases=[*report.cases, case]), [*failing, case])

    kinds = _kinds(Facts(evidence(read)).observations)
    assert "vector-edge" in kinds and "oob-vector" not in kinds, kinds
    # other programs' reads wholly past the end, far beyond one access: the operand is indexed along a longer dim
    kinds = _kinds(Facts(evidence(_replace(read, farthest=4 * 200))).observations)
    assert "oob-vector" in kinds and "vector-edge" not in kinds, kinds


def test_the_shuffled_average_control_builds_its_permutation_on_the_cpu_whatever_the_default_device():
    """On a GPU the probe runs in a worker whose default device is the GPU: a permutation drawn with a CPU generator
    must still be drawn on the CPU (run 86, H100: "Expected a 'cuda' device type for generator but found 'cpu'", so
    the control erred and no symmetric rescue could count on a GPU). The meta device stands in for the GPU here."""
    from kcheck.diagnose._probe import averaged_shuffled

    spec = spec_of.double_centre_wrong_axis
    x = torch.arange(16, dtype=torch.float32).reshape(4, 4)
    seen = {}

    def kernel(k):
        seen["k"] = k.clone()
        return k

    probe = averaged_shuffled(dataclasses.replace(spec, kernel=kernel), 0)
    with torch.device("meta"):
        probe.kernel(x)
    assert seen["k"].device.type == "cpu" and seen["k"].shape == x.shape
    assert torch.allclose(seen["k"].sum(), x.sum())  # the mean of each value and another: the total is kept


def test_a_formula_that_cancels_on_randn_data_is_placed_where_the_operation_is_ill_conditioned(tmp_path):
    """A thin lens's 1 / (1/f - 1/u) (round 29's thin lens, read after its score: index-transposition 0.35 on an
    H100, from "the failure vanishes when an input is all ones"). Its randn cases fail at a few elements only, each
    where the reference itself leaves the tolerance when its inputs move by a few ulps: cancellation, though randn
    cases are wrong far beyond rounding there."""
    diag = debug(spec_of.lens_textbook, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "cancellation" and diag.top.score >= 0.7, text
    assert "rounding-amplified" in _kinds(diag.top.supports), text
    assert any(e.axis == "conditioning" for e in diag.experiments), text


def test_a_few_wrong_elements_where_the_operation_is_well_conditioned_are_no_cancellation(tmp_path):
    """The control: the stable lens formula with its last column copied from the one before (a few wrong elements
    too, on randn data) is not placed where the operation is ill-conditioned."""
    diag = debug(spec_of.lens_last_column, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert not any(o.kind == "rounding-amplified" for c in diag.causes for o in c.supports), text
    assert diag.top is None or diag.top.key != "cancellation", text


def test_the_slice_probe_runs_on_a_training_spec(tmp_path):
    """The same squeeze over the wrong axis, declared for training (grad=True): the probe compares forward values,
    whose differences no gradient can flow through; it ran as an error on every training Spec before (round 30's
    Tukey biweight loss, read after its score)."""
    spec = dataclasses.replace(spec_of.channel_gate_wrong_axis, name="gate_wrong_axis_train", grad=True)
    diag = debug(spec, budget=60, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    probes = [e for e in diag.experiments if e.axis == "slice"]
    assert probes and not any(e.detail.startswith("error") for e in probes), text
    assert "mixes-slices" in _kinds(diag.observations), text


def test_nan_on_data_that_holds_zeros_at_every_scale_is_a_zero_denominator(tmp_path):
    """A chi-square distance over sparse histograms without its guard for a bin empty in both (round 30's, read
    after its score: index-transposition 0.4, with "NaN on randn data" held against a zero denominator). The data
    holds exact zeros, so the randn cases are NaN too, at every scale: no range is left, a zero does it."""
    diag = debug(spec_of.chi_square_unguarded, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "division-by-zero" and diag.top.score >= 0.7, text
    assert "nonfinite-scale-free" in _kinds(diag.top.supports), text


def test_nan_below_one_block_and_finite_errors_past_it_is_a_dropped_tail(tmp_path):
    """A ratio of sums gathered over whole chunks only (round 30's Macaulay duration, read after its score:
    division-by-zero 0.86, confident and wrong, from "NaN at ragged sizes, every access in bounds"). Below one chunk
    nothing is summed, 0 / 0; past it the ragged sizes are finite and wrong: the tail is dropped, which the lanes a
    mask turns off (NaN at every ragged size) do not explain."""
    diag = debug(spec_of.weighted_mean_whole_chunks, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "tail-tile-dropped", text
    assert "nonfinite-below-one-block" in _kinds(diag.top.supports), text
    zero = next((c for c in diag.causes if c.key == "division-by-zero"), None)
    assert zero is None or zero.score < 0.7, text


def test_a_wrong_tuning_constant_far_from_the_values_is_still_a_systematic_error(tmp_path):
    """Tukey's biweight loss with Huber's constant (round 30's, read after its score: index-transposition 0.4 from
    "wrong at every size"): every randn case off at nearly every element by a relative L2 error of about 0.84, at
    every shape and seed. Further than a fraction of the values, nearer than a zeroed output (1) or a permuted one
    (about 1.4 on random data): a formula or a constant."""
    diag = debug(spec_of.biweight_huber_constant, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "wrong-constant", text
    assert "systematic-error" in _kinds(diag.top.supports), text


def test_a_store_one_past_each_row_racing_with_the_next_row_is_a_bound_off_by_one(tmp_path):
    """A moving range whose mask is one too wide (round 31's, read after its score: missing-atomic 0.45 from the
    write-write races). Each row's extra lane stores onto the next row's first output, so programs race at every
    size; the accesses out of bounds are single lanes just past the end: a bound one too far, not a lost update."""
    diag = debug(spec_of.moving_range_one_too_wide, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "off-by-one-mask", text


def test_an_outer_products_1d_operands_read_on_swapped_axes_mix_the_raised_slices(tmp_path):
    """Two 1-D operands of an outer product, swapped inside each square tile (round 30's Beer-Lambert, read after
    its score: index-transposition 0.4 from "wrong at every size"). Raising one element of the row operand changes
    the reference's output in that row only (its slice lies along the output's rows, not the input's shape); the
    kernel's changes in a column of a tile."""
    diag = debug(spec_of.outer_scale_swapped, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "wrong-axis", text
    assert "mixes-slices" in _kinds(diag.top.supports), text


def test_wrong_everywhere_with_every_slice_kept_apart_is_the_arithmetic(tmp_path):
    """A quick GELU with its coefficient's sign flipped is wrong at every element of every size, by more than the
    values and by no common factor: no hallmark of a constant fits. Each raised slice of its input changes its
    outputs in that slice only, as the reference's: it reads each element where the operation does, so no index or
    axis, which the wrong sizes alone used to suggest (index-transposition 0.4)."""
    diag = debug(spec_of.quick_gelu_sign, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "wrong-constant", text
    assert {"keeps-slices", "everywhere-wrong"} <= _kinds(diag.top.supports), text
    for key in ("index-transposition", "wrong-axis"):
        cause = _cause(diag, key)
        assert cause is None or "keeps-slices" in _kinds(cause.contradicts), text


def test_a_dimension_too_short_to_show_mixing_keeps_no_slice_evidence(tmp_path):
    """A scale wrong at every element of an M x 1 input: raising a row changes that row only, yet a dimension of one
    element cannot show what a kernel mixes across it, so it counts as not probed and nothing claims that every
    slice stayed apart (round 30's Beer-Lambert once had its probe on an N = 1 case and was called a constant)."""
    spec = kcheck.Spec(name="column_scaled", kernel=lambda x: 3.0 * x, reference=lambda x: 2.0 * x,
                       inputs=[kcheck.Tensor("M", "N", name="x")],
                       dims={"M": kcheck.Dim(nominal=40, max=96), "N": kcheck.Dim(nominal=1, min=1, max=1)},
                       dtypes=["fp32"])
    diag = debug(spec, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert any(e.axis == "slice" and e.passed for e in diag.experiments), text  # the row probe ran, and passed
    assert "keeps-slices" not in _kinds(diag.observations), text


def test_one_plane_of_fixed_size_never_written_at_every_shape_is_a_missing_store(tmp_path):
    """A tone curve over three colour planes whose third plane's store is deleted (round 32's filmic tone map, read
    after its score: index-transposition 0.75, confident and wrong, from "never-written elements inside the
    output"). The same plane of three is unwritten at every shape and the rest is right: one store missing."""
    diag = debug(spec_of.planes_third_unwritten, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "no-op", text
    assert "unwritten-slice" in _kinds(diag.top.supports), text
    index = _cause(diag, "index-transposition")
    assert index is None or index.score < 0.5, text


def test_an_index_wrong_along_the_reduced_dimension_keeps_no_slice_evidence(tmp_path):
    """A Toeplitz product computing T^T x (round 32's, read after its score: wrong-axis 0.45 with "every slice kept
    apart" against index-transposition). The batch's slices stay apart, yet the index is wrong along the reduced
    dimension, which no raised slice shows: a reduced dimension counts as not probed, so nothing says the kernel
    reads each element where the operation does. Its two 1-D operands at ones together right it, which a matrix of
    ones, its own transpose, does for an index as well as for an axis."""
    diag = debug(spec_of.toeplitz_transposed, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert "keeps-slices" not in _kinds(diag.observations), text
    index = _cause(diag, "index-transposition")
    assert index is None or "keeps-slices" not in _kinds(index.contradicts), text
    # c and r at ones together right it (not one at a time): constant operands hide an index as well as an axis, so
    # no cause is confident from that alone (wrong-axis 0.93 before)
    assert "vectors-ones-rescue" in _kinds(diag.observations), text
    assert diag.top is not None and diag.top.score < 0.7, text


def test_a_matrix_read_with_the_wrong_row_length_is_an_index_error_though_it_mixes_slices(tmp_path):
    """A matrix product reading B (K x N) with rows K long passes every square shape. Raising one column of B moves
    other columns of the product, as an operand on the wrong axis does (wrong-axis 0.75 against index 0.70 when the
    slice probe first reached B, the tuned zoo's GEMM so ranked); but no operand is per-channel, and a reduction over
    the wrong axis is wrong on squares too."""
    diag = debug(spec_of.matmul_b_pitch, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "index-transposition", text
    axis = _cause(diag, "wrong-axis")
    assert axis is None or "square-only-no-vector" in _kinds(axis.contradicts), text


def test_an_error_drawn_anew_by_rounding_is_a_cancellation_not_a_wrong_constant(tmp_path):
    """log(1 + r) for log1p(r) on basis points: most elements of ordinary data are wrong by a fraction of a percent,
    which looked like a coefficient off (round 32's compound return so ranked wrong-constant 0.70). With the inputs
    moved by a relative 2**-10 the error changes by about as much as itself: rounding, digits lost."""
    diag = debug(spec_of.log_return_bps, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "cancellation", text
    assert "rounding-noise" in _kinds(diag.top.supports), text
    assert "rounding-noise" in _kinds(_cause(diag, "wrong-constant").contradicts), text


def test_an_error_that_moves_smoothly_with_the_inputs_is_no_rounding(tmp_path):
    """A quick GELU's sign flipped: its error moves by a thousandth of itself when the inputs move by 2**-10, which
    the error of a formula computed wrong does and rounding's does not."""
    diag = debug(spec_of.quick_gelu_sign, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert "smooth-error" in _kinds(diag.observations), text
    assert "rounding-noise" not in _kinds(diag.observations), text
    for key in ("cancellation", "low-precision-accumulation", "tolerance"):
        cause = _cause(diag, key)
        assert cause is None or "smooth-error" in _kinds(cause.contradicts), text


def test_an_error_the_same_inputs_do_not_give_again_says_nothing_of_rounding(tmp_path):
    """A row sum whose last row adds what lies past its data, a new value at each launch (memory past an allocation,
    read without access checks): the jitter probe's error changes by about itself, as rounding's does, but so it does
    on the same inputs. The probe returns NaN there, from which the observer concludes nothing, and its line says
    so (the row mean read one past its rows, below, ranked cancellation over off-by-one-mask on a loaded machine
    before); on a kernel whose error comes back, it still measures the change."""
    x = torch.randn(8, 48, generator=torch.Generator().manual_seed(0))
    assert torch.isnan(jittered(spec_of.row_sum_reads_garbage).kernel(x)).all()
    steady = jittered(spec_of.quick_gelu_sign).kernel(x)
    assert torch.isfinite(steady).all() and float(steady) < 0.05
    diag = debug(spec_of.row_sum_reads_garbage, budget=30, out_dir=tmp_path, repro=False, maps=False)
    jitter = [e for e in diag.experiments if e.axis == "jitter"]
    assert jitter and "nothing concluded" in jitter[0].detail, format_diagnosis(diag)


def test_nan_of_a_case_of_an_empty_dimension_says_nothing_of_the_layout(tmp_path):
    """Rows read as contiguous give NaN only in the padded (strided) cases; the launcher's NaN for rows of no element
    is 0 / 0 in any layout, and must not hide that (round 33's Herfindahl index on the default tier)."""
    diag = debug(spec_of.hhi_rows_contiguous, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "stride-assumption", text
    assert {"nonfinite-strided", "empty-fails"} <= _kinds(diag.observations), text


def test_a_few_dozen_zero_distances_among_thousands_of_bf16_pairs_are_a_zero_denominator(tmp_path):
    """An inverse-square intensity without its eps: in bf16 a sensor sits on a source now and then, 0.5-1% of 4096
    outputs infinite, the fp32 cases finite. Coincidences of short mantissas grow with the pairs compared, not with
    the outputs; at most 0.1% of them (the bound before) read as data out of range and left the cause unknown
    (round 33's inverse distance weighting on an H100)."""
    diag = debug(spec_of.inverse_square_intensity, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "division-by-zero", text
    assert "nonfinite-randn-rare" in _kinds(diag.top.supports), text


def test_one_lane_past_the_end_at_one_size_and_three_at_another_is_a_missing_mask(tmp_path):
    """A link-length load without its mask in a tile of next_power_of_2(J) lanes: at the Spec's J = 7 one lane reads
    past the end, as a bound off by one would (off-by-one-mask 0.88, round 34's planar arm); the size sweep's J = 5
    reads three. A bound off by one reads one element past at every size."""
    import importlib.util

    path = Path(__file__).resolve().parent / "zoo_heldout34" / "hx34_planar_arm_fk.py"
    module_spec = importlib.util.spec_from_file_location("hx34_planar_arm_fk", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    diag = debug(module.spec, budget=40, out_dir=tmp_path, repro=False, maps=False, tier="quick", large=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "edge-guard", text
    assert "oob-single-lane" not in _kinds(diag.observations), text



def test_a_band_of_the_same_width_at_one_end_at_every_size_is_a_boundary_one_off(tmp_path):
    """A three-point smoothing whose right neighbour is clamped one short: the last two columns are wrong at every
    N, written and in bounds, and nothing else. Before the edge band was observed, nothing but "wrong at every size"
    was seen (round 34's moving average, whose window test dropped x[0], so ranked index-transposition 0.4)."""
    diag = debug(spec_of.smooth3_clamp_short, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "off-by-one-mask", text
    assert "edge-band" in _kinds(diag.top.supports), text


def test_digits_of_a_small_x_lost_in_one_plus_x_are_a_cancellation_not_a_no_op(tmp_path):
    """log(1 + x) for log1p(x): the randn cases pass, the tiny pattern's output is exactly zeros (log1p of a tiny x
    is x) and the same data scaled by 0.001 fails. Round 35's growth rate so ranked no-op 0.97 from the one zero
    case; the kernel computes in the same precision and config on randn data, and the scaled data's error is drawn
    anew by rounding (the jitter probe run on that data, the only clean failure with a computed output)."""
    diag = debug(spec_of.log1p_naive, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "cancellation", text
    assert {"tiny-scale-fails", "rounding-noise"} <= _kinds(diag.top.supports), text
    assert "noop" not in _kinds(diag.observations), text


def test_wrong_values_on_the_grid_of_two_large_terms_ulp_are_a_cancellation(tmp_path):
    """1 - cos(theta) of milliradians: the kernel's values are a few multiples of 2**-24 where the result is about
    5e-7, off at most elements of ordinary data, which looked like a coefficient off (round 36's slant-range
    migration, sqrt(R0^2 + u^2) - R0 at R0 = 5000, so ranked wrong-constant 0.65)."""
    diag = debug(spec_of.versine_mrad, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "cancellation", text
    assert "coarse-grid" in _kinds(diag.top.supports), text
    assert "coarse-grid" in _kinds(_cause(diag, "wrong-constant").contradicts), text


def test_nan_on_a_randn_draw_that_holds_an_exact_zero_is_no_nan_on_ordinary_data(monkeypatch):
    """A ratio without its zero guard. A CUDA generator's randn is exactly 0 at about one element in 8 million, so a
    large randn case on a GPU can divide by zero (round 35's Poisson ratio on the H100 got `nonfinite-randn`, which
    counts against a zero denominator). The case records which inputs held an exact 0, and such a case says
    nothing about NaN on ordinary data."""
    import kcheck.cases._inputs as inputs
    from kcheck.run import run_case

    made = inputs.make

    def with_a_zero(pattern, shape, dtype, device, gen):
        x = made(pattern, shape, dtype, device, gen)
        if pattern == "randn" and len(shape) == 2:
            x.view(-1)[x.numel() // 2] = 0.0  # the draw that rounded to 0
        return x

    spec = kcheck.Spec(name="ratio", kernel=lambda a, b: -a / b,
                       reference=lambda a, b: torch.where(b != 0, -a / torch.where(b != 0, b, 1.0), 0.0),
                       inputs=[kcheck.Tensor("M", "N", name="lat"), kcheck.Tensor("M", "N", name="ax")],
                       dims={"M": kcheck.Dim(nominal=8, real=()), "N": kcheck.Dim(nominal=300, real=())},
                       dtypes=["fp32"], layouts=("contiguous",))
    dev = detect()
    case = next(c for c in kcheck.matrix(spec, tier="quick", large=False, device=dev) if c.pattern == "randn")
    assert run_case(spec, case, dev).zero_inputs == []  # plain randn on this CPU
    monkeypatch.setattr(inputs, "make", with_a_zero)
    res = run_case(spec, case, dev)
    assert res.status is Status.FAILED and res.zero_inputs == ["lat", "ax"], (res.status, res.zero_inputs)
    assert any(c.nan_mismatches for c in res.comparisons), res.comparisons  # 0 / 0

    def kinds(r):
        return _kinds(Facts(Evidence(spec, kcheck.SpecReport("ratio", "torch", "cpu", [r]), [r])).observations)

    assert "nonfinite-randn" not in kinds(res)
    assert "nonfinite-randn" in kinds(dataclasses.replace(res, zero_inputs=[]))  # NaN on data with no zero


def test_an_untrusted_randn_case_does_not_show_that_the_kernel_computes():
    """A launcher that returns its input: every case is a no-op's output. On an H100 the tuned zoo's two no-op
    kernels lost `noop` (index-transposition 0.45 and 0.4): five of their randn cases of the same shape, precision
    and config were untrusted there, and an untrusted case counted as one that passes, where the kernel computes."""
    from kcheck.run import run_case

    spec = kcheck.Spec(name="identity", kernel=lambda x: x, reference=lambda x: x * 0.5 + 1.0,
                       inputs=[kcheck.Tensor("N")], dims={"N": kcheck.Dim(nominal=256, real=())}, dtypes=["fp32"],
                       layouts=("contiguous",))
    dev = detect()
    case = next(c for c in kcheck.matrix(spec, tier="quick", large=False, device=dev) if c.pattern == "randn")
    res = run_case(spec, case, dev)
    assert res.status is Status.FAILED and res.noop, (res.status, res.noop)
    untrusted = dataclasses.replace(res, case=dataclasses.replace(case, seed=case.seed + 1), status=Status.UNTRUSTED,
                                    untrusted="not trusted on this machine")

    def kinds(*rs):
        report = kcheck.SpecReport("identity", "torch", "cpu", list(rs))
        return _kinds(Facts(Evidence(spec, report, [res])).observations)

    assert "noop" in kinds(res, untrusted)
    assert "noop" not in kinds(res, dataclasses.replace(res, status=Status.PASSED))  # a pass there: it computes


def test_zeros_on_ordinary_data_that_compute_once_the_data_is_scaled_are_digits_lost_not_a_no_op(tmp_path):
    """sqrt(L^2 + d^2) - L over a 10 km span: a sag of a metre leaves L^2 unchanged in fp32, so most outputs are
    exactly 0 and the no-op guard names zeros; the same sags x 10 compute. A no-op's zeros stay zeros at any scale
    (round 37's sagitta on an H100, 1 - cos(s / 2R) of surveying arcs, was ranked no-op 0.97)."""
    diag = debug(spec_of.excess_length, budget=30, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "cancellation", text
    assert "noop-follows-scale" in _kinds(diag.top.supports), text
    assert "noop" not in _kinds(diag.observations), text


def test_a_backward_reading_a_per_channel_operand_along_the_rows_is_a_wrong_axis(tmp_path):
    """Round 37's scaled LiSHT: the backward broadcast the per-feature slope with [:, None] on square tiles, so row
    i took slope[i], and 0 past the slope's end. The forward is right. The slope at ones rights the gradients only
    where its dimension is the longest (the smallest failing case had N = 1: every row past the first took 0); and
    the slice probe, which watches the forward outputs, said the kernel keeps every slice apart. Before: edge-guard
    0.6 beside wrong-constant 0.6."""
    diag = debug(spec_of.gain_grad_rows, budget=40, out_dir=tmp_path, repro=False, maps=False)
    text = format_diagnosis(diag)
    assert diag.top is not None and diag.top.key == "wrong-axis" and diag.top.score >= 0.8, text
    assert "vector-ones-rescues" in _kinds(diag.top.supports), text
    assert "keeps-slices" not in _kinds(diag.observations), text


def test_a_per_channel_operand_is_set_to_ones_where_its_dimension_is_the_longest():
    """On a failing case where N = 1 and M = 16, a backward that reads gain along the rows takes 0 past gain's end
    at rows 1..15, which ones cannot right: the structural probe sets gain to ones at N = 16 (that case failing on
    randn first), where every row's index stays inside gain (round 37's scaled LiSHT, whose probe case had N = 1)."""
    from kcheck.diagnose._observe import values_right
    from kcheck.diagnose._sweep import probe_structure

    spec = spec_of.gain_grad_rows
    report = kcheck.check(spec, tier="quick", large=False).specs[0]
    ev = Evidence(spec, report, [r for r in report.cases if not r.ok])
    nominal = next(r.case for r in report.cases if r.case.pattern == "randn")
    case = dataclasses.replace(nominal, dims=(("M", 16), ("N", 1)))
    with Prober(spec, detect(), 60) as prober:
        probe_structure(prober, ev, case)
    ones = ev.ones[1]
    assert ones.case.sizes == {"M": 16, "N": 16} and (ones.ok or values_right(ones)), (ones.case.id, ones.reasons)


def test_a_probe_that_crashes_costs_one_probe_on_a_cpu_too():
    """The debugger's probes run in a worker on a CPU as on a GPU, whether or not a case of the check crashed: a
    probe (a size, a pattern or a variant the check never ran) may be the first to crash, and the process that
    called the debugger must outlive it. Before, on a CPU, probes ran in the caller's process unless a case had
    crashed: this launcher's abort at odd M ended it."""
    spec = spec_of.permute_wrong_layout_crashing
    odd = next(c for c in kcheck.matrix(spec, tier="quick") if c.sizes["M"] % 2)
    with Prober(spec, detect(), 60) as prober:
        assert prober.worker is not None
        res = prober.run(odd, "size", "odd M")
    assert res is not None and res.status is Status.CRASHED, res
    assert prober.experiments[-1].label == "odd M" and not prober.experiments[-1].passed
