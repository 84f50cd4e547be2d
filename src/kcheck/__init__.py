"""kcheck: tells a GPU kernel's author whether the kernel is right, and when it is not, why.

    import kcheck
    spec = kcheck.Spec(name="add", kernel=add, reference=torch.add,
                       inputs=[kcheck.Tensor("N"), kcheck.Tensor("N")])
    report = kcheck.check(spec)
    assert report.passed, kcheck.format_report(report)
"""

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
