"""compute-sanitizer, run right: the sanitized pass over a Spec's edge cases, and parsers of its output."""

from __future__ import annotations

from ._parse import SanitizerOutputError, SanitizerRun, case_index, parse, parse_text, parse_xml
from ._run import TOOLS, SanitizeReport, ToolRun, edge_cases, sanitize

__all__ = ["TOOLS", "SanitizeReport", "SanitizerOutputError", "SanitizerRun", "ToolRun", "case_index", "edge_cases",
           "parse", "parse_text", "parse_xml", "sanitize"]
