"""The zoo scorer's baselines call the kernel raw; on a GPU they run in a child process (a trap there breaks the
process's CUDA context for good), and a child that dies counts as flagged by both baselines."""

import importlib.util
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _zoo():
    spec = importlib.util.spec_from_file_location("zoo_bench_baselines", ROOT / "benchmarks" / "zoo.py")
    zoo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(zoo)
    return zoo


def _load(path: Path, name: str):
    from kcheck._discover import discover

    return next(s for f in discover(path) for s in f.specs if s.name == name)


def test_baselines_apart_agree_with_the_baselines_in_process():
    zoo = _zoo()
    spec = _load(ROOT / "examples" / "vector_add.py", "vector_add")
    assert zoo._baselines_apart(spec) == (zoo.kernelbench(spec), zoo.one_shape(spec)) == (False, False)


def test_a_kernel_that_kills_the_baseline_process_counts_as_flagged_and_the_scorer_lives_on(tmp_path):
    zoo = _zoo()
    path = tmp_path / "dies_spec.py"
    path.write_text(textwrap.dedent('''
        import os
        import torch
        import kcheck

        def dies(x):
            os._exit(7)  # what a device-side trap does to the process that launched the kernel

        spec = kcheck.Spec(name="dies", kernel=dies, reference=torch.neg, inputs=[kcheck.Tensor("N")],
                           dims={"N": kcheck.Dim(nominal=64)})
    '''))
    assert zoo._baselines_apart(_load(path, "dies")) == (True, True)


def test_each_large_result_replaces_its_own_skipped_case():
    """Two past-2**31 cases: the first skipped for memory, the second failed. The row must hold the failure (the
    scorer once put the first result in both places, and a planted bug caught there read as a miss)."""
    from kcheck import CaseResult
    from kcheck._results import Status

    zoo = _zoo()
    spec = _load(ROOT / "examples" / "softmax.py", "softmax")
    import kcheck

    large = [c for c in kcheck.matrix(spec) if c.axis == "large"][:2]
    assert len(large) == 2
    normal = next(c for c in kcheck.matrix(spec) if c.axis != "large")
    cases = [CaseResult(normal, Status.PASSED)] + [CaseResult(c, Status.SKIPPED) for c in large]
    done = {large[0].id: CaseResult(large[0], Status.SKIPPED, reasons=["out of memory"]),
            large[1].id: CaseResult(large[1], Status.FAILED)}
    zoo._merge_large(cases, done)
    assert [c.status for c in cases] == [Status.PASSED, Status.SKIPPED, Status.FAILED]


def test_a_merge_of_parts_lists_what_is_missing_from_the_zoo_the_parts_scored(tmp_path):
    """Parts of a held-out round merged without --zoo listed the tuned zoo's Specs as cut: the parts now record
    their zoo, and the merge reads it."""
    import json

    zoo = _zoo()
    folder = tmp_path / "zoo"
    folder.mkdir()
    for name in ("first", "second"):
        (folder / f"{name}.py").write_text(textwrap.dedent(f"""
            import torch
            import kcheck
            spec = kcheck.Spec(name="{name}", kernel=torch.neg, reference=torch.neg, inputs=[kcheck.Tensor("N")],
                               dims={{"N": kcheck.Dim(nominal=8)}})
            """))
    part = tmp_path / "q0.json"
    part.write_text(json.dumps({"rows": [{"spec": "first"}], "zoo": str(folder), "examples": False}))
    rows, missing = zoo.merged([str(part)])
    assert [r["spec"] for r in rows] == ["first"]
    assert missing == ["second"]
