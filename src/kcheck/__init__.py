"""kcheck: tells a GPU kernel's author whether the kernel is right, and when it is not, why.

    import kcheck
    spec = kcheck.Spec(name="add", kernel=add, reference=torch.add,
                       inputs=[kcheck.Tensor("N"), kcheck.Tensor("N")])
    report = kcheck.check(spec)
    assert report.passed, kcheck.format_report(report)
"""

# The names below are loaded on first use (PEP 562, https://peps.python.org/pep-0562/; the first one loads them
# all): ``import kcheck`` costs nothing until then, so the command line can start its workers' server (which
# imports torch and Triton, seconds) before this process imports them itself.
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from . import properties as props
    from ._check import check, matrix
    from ._device import enable_interpreter_if_no_gpu
    from ._dtypes import PRECISIONS
    from ._errors import EnvironmentProblem, Interrupted, KcheckError, SpecError
    from ._options import Options
    from ._results import CaseResult, Reason, ReasonKind, Report, SpecReport, Status, Verdict
    from ._spec import Custom, Dim, Index, Scalar, Spec, Tensor
    from .backends import CudaKernel
    from .cases import Case, CaseContext
    from .diagnose import Cause, Diagnosis, debug, doctor, format_diagnosis
    from .evaluation import Evaluation, evaluate
    from .properties import Property, PropertyContext
    from .report import format_case, format_report

#: Where each public name lives: the module, and the attribute there (None: the module itself).
_WHERE: dict[str, tuple[str, str | None]] = {
    "props": (".properties", None),
    "check": ("._check", "check"),
    "matrix": ("._check", "matrix"),
    "enable_interpreter_if_no_gpu": ("._device", "enable_interpreter_if_no_gpu"),
    "PRECISIONS": ("._dtypes", "PRECISIONS"),
    "EnvironmentProblem": ("._errors", "EnvironmentProblem"),
    "Interrupted": ("._errors", "Interrupted"),
    "KcheckError": ("._errors", "KcheckError"),
    "SpecError": ("._errors", "SpecError"),
    "Options": ("._options", "Options"),
    "CaseResult": ("._results", "CaseResult"),
    "Reason": ("._results", "Reason"),
    "ReasonKind": ("._results", "ReasonKind"),
    "Report": ("._results", "Report"),
    "SpecReport": ("._results", "SpecReport"),
    "Status": ("._results", "Status"),
    "Verdict": ("._results", "Verdict"),
    "Custom": ("._spec", "Custom"),
    "Dim": ("._spec", "Dim"),
    "Index": ("._spec", "Index"),
    "Scalar": ("._spec", "Scalar"),
    "Spec": ("._spec", "Spec"),
    "Tensor": ("._spec", "Tensor"),
    "CudaKernel": (".backends", "CudaKernel"),
    "Case": (".cases", "Case"),
    "CaseContext": (".cases", "CaseContext"),
    "Cause": (".diagnose", "Cause"),
    "Diagnosis": (".diagnose", "Diagnosis"),
    "debug": (".diagnose", "debug"),
    "doctor": (".diagnose", "doctor"),
    "format_diagnosis": (".diagnose", "format_diagnosis"),
    "Evaluation": (".evaluation", "Evaluation"),
    "evaluate": (".evaluation", "evaluate"),
    "Property": (".properties", "Property"),
    "PropertyContext": (".properties", "PropertyContext"),
    "format_case": (".report", "format_case"),
    "format_report": (".report", "format_report"),
}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'kcheck' has no attribute {name!r}")
    # the first name asked for loads them all, in the order the eager imports had (their side effects included:
    # the backends register themselves, which enable_interpreter_if_no_gpu relies on)
    for key, (module_name, attribute) in _WHERE.items():
        module = import_module(module_name, __name__)
        globals()[key] = module if attribute is None else getattr(module, attribute)
    return globals()[name]


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "PRECISIONS",
    "Case",
    "CaseContext",
    "CaseResult",
    "Cause",
    "CudaKernel",
    "Custom",
    "Diagnosis",
    "Dim",
    "EnvironmentProblem",
    "Evaluation",
    "Index",
    "Interrupted",
    "KcheckError",
    "Options",
    "Property",
    "PropertyContext",
    "Reason",
    "ReasonKind",
    "Report",
    "Scalar",
    "Spec",
    "SpecError",
    "SpecReport",
    "Status",
    "Tensor",
    "Verdict",
    "check",
    "debug",
    "doctor",
    "enable_interpreter_if_no_gpu",
    "evaluate",
    "format_case",
    "format_diagnosis",
    "format_report",
    "matrix",
    "props",
]
