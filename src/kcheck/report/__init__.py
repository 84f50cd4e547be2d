"""Report: messages, terminal tables and JSON for check results (M15)."""

from ._message import format_case, format_comparison, format_report, summarize_case

__all__ = ["format_case", "format_comparison", "format_report", "summarize_case"]
