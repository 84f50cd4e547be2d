"""Report: results as text for people (the terminal, failure messages), as JSON written as it comes, as HTML with
error maps. The only layer that turns kinds into words."""

from ._html import write_html
from ._maps import case_tensors, error_map, maps_for_case, tile_of
from ._message import format_case, format_comparison, format_report, summarize_case
from ._stream import JsonReport, check_writable, write_atomic
from ._terminal import conclusion, print_report, print_sanitize, progress_display, resources_table, summary_table

__all__ = ["JsonReport", "case_tensors", "check_writable", "conclusion", "error_map", "format_case",
           "format_comparison", "format_report", "maps_for_case", "print_report", "print_sanitize",
           "progress_display", "resources_table", "summarize_case", "summary_table", "tile_of", "write_atomic",
           "write_html"]
