"""Parsers for compute-sanitizer's output: the ``=========`` text and the ``--xml --save FILE`` document.

Both give a :class:`SanitizerRun`: the records as kcheck :class:`~kcheck._findings.Finding`s (each with its host
backtrace, so that a caller can tie a record to the test case that launched the kernel), the counts the tool reported,
and a status that fails closed.

Policy for malformed input: the parsers never raise because of the *content* they are given. Garbage, a truncated
file, a log without a summary line, a document with a DOCTYPE: each gives a ``SanitizerRun`` whose status is
``"unknown"`` and whose ``problems`` say why; whatever complete records came before the damage are still returned.
(A bug in the parser itself is caught too and reported the same way, as a problem starting with "internal parser
error".) Exceptions are kept for the caller's mistakes: a ``tool`` that is not one of the four tools, or a ``text``
that is neither ``str`` nor ``bytes``, raise :class:`~kcheck._errors.SpecError`. A caller that prefers an exception to
an unknown status calls :meth:`SanitizerRun.require_complete`, which raises :class:`SanitizerOutputError`.

Status, fail closed:

- ``"unknown"``: no summary line was seen (text), or the document is not a complete ``ComputeSanitizerOutput``
  (XML), or the sanitizer reported an error of its own, or the XML holds an element other than ``<record>``
  (``untrusted``). Never ``"clean"`` without positive evidence.
- ``"errors"``: at least one record, or a summary that counts errors (or racecheck warnings), or errors not printed.
- ``"clean"``: a complete output that reports 0 errors and holds no record.

The XML form has no summary: a well-formed document closed by ``</ComputeSanitizerOutput>`` counts as complete, and
``errors_reported`` stays ``None`` (records dropped by ``--print-limit`` are invisible in it). It also has no "nearest
allocation" information, so ``distance`` and ``allocation_size`` are set from the text form only.
"""

from __future__ import annotations

from ._records import TOOLS, Frame, SanitizerOutputError, SanitizerRun, _check_args, case_index
from ._text import parse_text
from ._xml import _ROOT, parse_xml

__all__ = ["TOOLS", "Frame", "SanitizerOutputError", "SanitizerRun", "case_index", "parse", "parse_text", "parse_xml"]

# ------------------------------------------------------------------------------------------------------------ sniff


def parse(text: str | bytes, tool: str) -> SanitizerRun:
    """Parse either form: a text starting with ``<?xml`` or ``<ComputeSanitizerOutput`` is XML, anything else text."""
    text, tool = _check_args(text, tool)
    head = text.lstrip("\ufeff \t\r\n")[:200]
    if head.startswith("<?xml") or head.startswith(f"<{_ROOT}"):
        return parse_xml(text, tool)
    return parse_text(text, tool)
