"""compute-sanitizer support: parse its output (text or ``--xml --save``) into kcheck Findings."""

from __future__ import annotations

from ._parse import SanitizerOutputError, SanitizerRun, case_index, parse, parse_text, parse_xml

__all__ = ["SanitizerOutputError", "SanitizerRun", "case_index", "parse", "parse_text", "parse_xml"]
