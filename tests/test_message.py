"""The failure message, line by line: users parse it (like torch's assert_close tests)."""

import torch

import kcheck


def _spec(kernel, **kw):
    return kcheck.Spec(name="double", kernel=kernel, reference=lambda x: 2 * x, inputs=[kcheck.Tensor("M", "N")],
                       dims={"M": kcheck.Dim(nominal=8, real=()), "N": kcheck.Dim(nominal=64, real=())}, **kw)


def _message(spec, case):
    report = kcheck.check(spec, cases=case)
    return kcheck.format_case(report.cases[0], "kernels.py").splitlines()


def test_message_for_a_dropped_tail_tile():
    def kernel(x):
        y = 2 * x
        y[:, 128:] = 0.0
        return y

    lines = _message(_spec(kernel), "double[M=129,N=129,fp32,ones,seed=0]")
    assert lines == [
        "double[M=129,N=129,fp32,ones,seed=0] FAILED",
        "output 0: Tensor-likes are not close!",
        "",
        "Mismatched elements: 129 / 16641 (0.8%)",
        "Greatest absolute difference: 2 at index (0, 128) (up to 2e-05 allowed)",
        "Greatest relative difference: 1 at index (0, 128) (up to 1e-05 allowed)",
        "Relative L2 error: 0.088; greatest ULP distance: 8.39e+06 (float32)",
        "Where: tail columns 128..128, past the last full block of 16, 32, 64 or 128 (129 = 1x128 + 1), in every row",
        "First mismatches:",
        "  [0, 128]: 0.0 (ACTUAL), 2.0 (DESIRED)",
        "  [1, 128]: 0.0 (ACTUAL), 2.0 (DESIRED)",
        "  [2, 128]: 0.0 (ACTUAL), 2.0 (DESIRED)",
        "  [3, 128]: 0.0 (ACTUAL), 2.0 (DESIRED)",
        "  [4, 128]: 0.0 (ACTUAL), 2.0 (DESIRED)",
        "Tolerance: fp32 table 1e-05; atol = rtol x rms(expected) = 1e-05 x 2",
        "",
        "Case: M=129, N=129, precision=fp32, pattern=ones, layout=contiguous, seed=0",
        "Rerun: kcheck check kernels.py --case 'double[M=129,N=129,fp32,ones,seed=0]'",
    ]


def test_message_for_an_unwritten_column():
    def kernel(x, out):
        out[:, :-1] = 2 * x[:, :-1]

    lines = _message(_spec(kernel, outputs=[kcheck.Tensor("M", "N")]), "double[M=129,N=129,fp32,ones,seed=0]")
    assert lines[3:8] == [
        "Mismatched elements: 129 / 16641 (0.8%)",
        "Greatest absolute difference: nan at index (0, 128) (up to 2e-05 allowed)",
        "Greatest relative difference: nan at index (0, 128) (up to 1e-05 allowed)",
        "Relative L2 error (finite elements only): 0; greatest ULP distance (finite elements only): 0 (float32)",
        "Unwritten elements: 129 (still hold the poison written before the call)",
    ]
    assert lines[9:11] == ["First mismatches:", "  [0, 128]: nan (ACTUAL), 2.0 (DESIRED)"]


def test_message_when_the_kernel_drops_the_references_nan():
    """The reference is NaN where the kernel gives a finite value: the greatest difference is NaN (not the kernel's
    value), the NaN line does not say the kernel put NaN where it should not, and the L2 figure says it counts only
    the finite elements."""
    spec = kcheck.Spec(name="double", kernel=lambda x: torch.nan_to_num(2 * x, nan=-0.25),
                       reference=lambda x: 2 * x, inputs=[kcheck.Tensor("N")],
                       dims={"N": kcheck.Dim(nominal=8, real=())}, patterns=["nonfinite"])
    report = kcheck.check(spec)
    failed = [r for r in report.cases if r.status is kcheck.Status.FAILED]
    assert failed, [r.status for r in report.cases]
    lines = kcheck.format_case(failed[0], "kernels.py").splitlines()
    text = "\n".join(lines)
    assert any(ln.startswith("Greatest absolute difference: nan at index") for ln in lines), text
    assert not any("-0.25 at index" in ln for ln in lines), text
    assert any(ln.startswith("NaN in one of output and reference only: ") for ln in lines), text
    assert any(ln.startswith("Relative L2 error (finite elements only): ") for ln in lines), text


def test_message_for_an_error_and_a_property():
    def kernel(x):
        raise IndexError("index 64 is out of bounds")

    lines = _message(_spec(kernel), "double[M=8,N=64,fp32,randn,seed=0]")
    assert lines[0] == "double[M=8,N=64,fp32,randn,seed=0] ERROR"
    assert lines[1].startswith("the kernel raised IndexError: index 64 is out of bounds (at ")
    assert lines[-2] == "Case: M=8, N=64, precision=fp32, pattern=randn, layout=contiguous, seed=0"


def test_no_op_guard_line():
    spec = kcheck.Spec(name="nudge", kernel=lambda x, y: x.clone(), reference=lambda x, y: x + 1e-7 * y,
                       inputs=[kcheck.Tensor("N"), kcheck.Tensor("N")], dims={"N": kcheck.Dim(nominal=256, real=())})
    report = kcheck.check(spec, cases="nudge[N=256,fp32,randn,seed=0]")
    lines = kcheck.format_case(report.cases[0]).splitlines()
    assert lines[0] == "nudge[N=256,fp32,randn,seed=0] FAILED"
    assert ("output 0: no-op: the output is exactly input 0 unchanged, which this tolerance cannot tell from the "
            "reference; the kernel did not compute it") in lines
    assert "No-op guard: output 0 is exactly input 0 unchanged; this check's tolerance cannot tell it from the " \
           "reference" in lines


def test_a_one_line_summary_names_the_status_once():
    from kcheck._results import CaseResult, Reason, ReasonKind, Status
    from kcheck.cases import Case
    from kcheck.report import summarize_case

    case = Case("k", (("N", 8),), "fp32")
    why = Reason("crashed: killed by SIGSEGV (signal 11)", ReasonKind.CRASHED)
    res = CaseResult(case, Status.CRASHED, reasons=[why])
    assert summarize_case(res) == "crashed: killed by SIGSEGV (signal 11)"
