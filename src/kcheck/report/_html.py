"""An HTML report: one self-contained file (error maps embedded as base64 PNG data URIs, no script, plain CSS).

A summary table of every Spec (verdict, counts by status, time), then for each failing Spec its failing cases with
kcheck's message for the first few, the error maps of the first failing cases (re-run through ``maps_for_case``,
which needs the Spec objects: the Report holds names only), and, when given, the diagnosis of ``kcheck debug``:
ranked causes with their evidence and next check, the experiments, the minimal case and the repro script.
"""

from __future__ import annotations

import base64
import datetime
import html
import re
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._results import CaseResult, Report, SpecReport, Status
from ._maps import maps_for_case
from ._message import format_case, summarize_case

if TYPE_CHECKING:
    from .._spec import Spec

_STATUS_ORDER = (Status.PASSED, Status.FAILED, Status.ERROR, Status.CRASHED, Status.TIMEOUT, Status.UNTRUSTED,
                 Status.SKIPPED)
_MAX_LISTED = 40  # failing cases listed per Spec (their messages: max_cases_per_spec)

_CSS = """
body { font-family: -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; margin: 0; color: #1f2328;
       background: #f6f8fa; line-height: 1.45; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 28px 60px; background: #fff; min-height: 100vh; }
h1 { font-size: 1.6em; margin: 0 0 4px; }
h2 { font-size: 1.3em; margin: 36px 0 8px; padding-bottom: 4px; border-bottom: 1px solid #d0d7de; }
h3 { font-size: 1.08em; margin: 22px 0 6px; }
h4 { font-size: 1em; margin: 16px 0 4px; }
.meta { color: #57606a; font-size: 0.9em; margin: 0 0 18px; }
table { border-collapse: collapse; margin: 8px 0 14px; font-size: 0.9em; }
th, td { border: 1px solid #d0d7de; padding: 4px 9px; text-align: left; vertical-align: top; }
th { background: #f0f3f6; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.zero { color: #b0b7bf; }
tr:nth-child(even) td { background: #fafbfc; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.86em; }
pre { background: #f6f8fa; border: 1px solid #d0d7de; border-radius: 6px; padding: 10px 12px; overflow-x: auto;
      white-space: pre-wrap; word-break: break-word; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 0.8em; font-weight: 600;
         color: #fff; white-space: nowrap; }
.passed { background: #1a7f37; } .failed, .error, .crashed, .timeout { background: #cf222e; }
.skipped { background: #9a6700; } .untrusted { background: #8250df; }
.verdict-failed { color: #cf222e; font-weight: 700; } .verdict-passed { color: #1a7f37; font-weight: 700; }
.warn { color: #7d4e00; background: #fff8c5; border: 1px solid #eac54f; border-radius: 6px; padding: 6px 10px;
        margin: 6px 0; font-size: 0.9em; }
.note { color: #57606a; font-size: 0.9em; }
.map { margin: 10px 0 18px; }
.map img { max-width: 100%; border: 1px solid #d0d7de; border-radius: 4px; }
.map .caption { color: #57606a; font-size: 0.85em; }
details { margin: 6px 0; } summary { cursor: pointer; font-weight: 600; }
.cause { border: 1px solid #d0d7de; border-radius: 6px; padding: 8px 12px; margin: 8px 0; }
.cause.top { border-color: #cf222e; box-shadow: 0 0 0 1px #cf222e33; }
.cause .title { font-weight: 600; }
.cause .key { color: #57606a; font-size: 0.85em; margin-left: 6px; }
.score { display: inline-block; width: 120px; height: 9px; background: #eaeef2; border-radius: 5px;
         vertical-align: middle; margin: 0 6px; overflow: hidden; }
.score span { display: block; height: 100%; background: #cf222e; }
.next { margin: 4px 0 0; } .next b { color: #0969da; }
.ok { color: #1a7f37; font-weight: 600; } .bad { color: #cf222e; font-weight: 600; }
a { color: #0969da; text-decoration: none; } a:hover { text-decoration: underline; }
"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _anchor(name: str) -> str:
    return "spec-" + re.sub(r"[^A-Za-z0-9_-]+", "-", name)


def _badge(status: Status | str) -> str:
    value = status.value if isinstance(status, Status) else str(status)
    return f'<span class="badge {_e(value)}">{_e(value.upper())}</span>'


def _data_uri(path: Path) -> str:
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def _summary(report: Report, diagnoses: Mapping[str, Any]) -> list[str]:
    out = ["<table>", "<tr><th>Spec</th><th>framework</th><th>verdict</th>"]
    out += [f'<th class="num">{_e(st.value)}</th>' for st in _STATUS_ORDER]
    out.append('<th class="num">cases</th><th class="num">time (s)</th>' + ("<th>top cause</th>" if diagnoses else "")
               + "</tr>")
    for s in report.specs:
        verdict = s.verdict.value.upper()
        row = [f'<tr><td><a href="#{_anchor(s.name)}">{_e(s.name)}</a></td><td>{_e(s.framework)}</td>',
               f'<td class="verdict-{verdict.lower().replace(" ", "-")}">{verdict}</td>']
        for st in _STATUS_ORDER:
            n = s.count(st)
            row.append(f'<td class="num{" zero" if n == 0 else ""}">{n}</td>')
        row.append(f'<td class="num">{len(s.cases)}</td><td class="num">{s.seconds:.1f}</td>')
        if diagnoses:
            d = diagnoses.get(s.name)
            row.append(f"<td>{_e(d.top.title) if d is not None and d.top is not None else ''}</td>")
        row.append("</tr>")
        out.append("".join(row))
    out.append("</table>")
    return out


def _maps_html(spec: Spec | None, res: CaseResult, work: Path) -> list[str]:
    if spec is None:
        return ['<p class="note">No error map: pass the Spec objects (<code>specs=</code>) to draw them.</p>']
    if res.status is not Status.FAILED or all(c.passed for c in res.comparisons):
        return []

    try:
        paths = maps_for_case(spec, res.case, work, result=res)
    except Exception as exc:  # a map is a help, never a reason to lose the report
        return [f'<p class="note">No error map: {_e(type(exc).__name__)}: {_e(exc)}</p>']
    out = []
    for p in paths:
        out.append(f'<div class="map"><img alt="error map of {_e(res.id)}" src="{_data_uri(p)}">'
                   f'<div class="caption">Error map of {_e(res.id)} (re-run; grey: within tolerance, colour: '
                   f'outside, cyan: never written, green: NaN/Inf where the reference differs)</div></div>')
    if not paths:
        out.append('<p class="note">No error map: no output of the re-run differs from the reference.</p>')
    return out


def _spec_section(s: SpecReport, warnings: list[str], spec: Spec | None, diagnosis: Any,
                  source: str | None, max_cases: int, maps_per_spec: int, maps: bool, work: Path) -> list[str]:
    verdict = s.verdict.value.upper()
    counts = ", ".join(f"{s.count(st)} {st.value}" for st in _STATUS_ORDER if s.count(st))
    css = verdict.lower().replace(" ", "-")
    out = [f'<h2 id="{_anchor(s.name)}">{_e(s.name)} <span class="verdict-{css}">{verdict}</span></h2>',
           f'<p class="meta">{_e(s.framework)} on {_e(s.device)}; {_e(counts)}; {s.seconds:.1f} s</p>']
    out += [f'<div class="warn">{_e(w)}</div>' for w in warnings]
    if diagnosis is not None:
        out += _diagnosis_html(diagnosis)
    fails = s.failures
    if not fails:
        return out
    out.append(f"<h3>Failing cases ({len(fails)})</h3>")
    out.append("<table><tr><th>case</th><th>status</th><th>what</th></tr>")
    for res in fails[:_MAX_LISTED]:
        out.append(f"<tr><td><code>{_e(res.id)}</code></td><td>{_badge(res.status)}</td>"
                   f"<td>{_e(summarize_case(res))}</td></tr>")
    out.append("</table>")
    if len(fails) > _MAX_LISTED:
        out.append(f'<p class="note">... and {len(fails) - _MAX_LISTED} more (see the JSON report).</p>')
    mapped = 0
    for res in fails[:max_cases]:
        out.append(f"<h4><code>{_e(res.id)}</code> {_badge(res.status)}</h4>")
        out.append(f"<pre>{_e(format_case(res, source))}</pre>")
        if maps and mapped < maps_per_spec:
            got = _maps_html(spec, res, work)
            mapped += any("<img" in g for g in got)
            out += got
    if len(fails) > max_cases:
        out.append(f'<p class="note">Messages of {len(fails) - max_cases} more failing cases left out '
                   f"(max_cases_per_spec={max_cases}).</p>")
    return out


def _diagnosis_html(d: Any) -> list[str]:
    out = [f"<h3>Diagnosis</h3><p class=\"meta\">{'failed' if d.failed else 'did not fail'}; "
           f"{d.seconds:.1f} s of a {d.budget_seconds:.0f} s budget</p>"]
    if d.causes:
        out.append("<h4>Likely causes, most likely first</h4><ol>")
        for i, c in enumerate(d.causes):
            pct = max(0.0, min(1.0, c.score)) * 100
            out.append(f'<li><div class="cause{" top" if i == 0 else ""}"><span class="title">{_e(c.title)}</span>'
                       f'<span class="key">[{_e(c.key)}]</span><span class="score" title="score {c.score:.2f}">'
                       f'<span style="width: {pct:.0f}%"></span></span><span class="note">{c.score:.2f}</span>')
            if c.evidence:
                out.append("<ul>" + "".join(f"<li>{_e(ev)}</li>" for ev in c.evidence) + "</ul>")
            if c.next_check:
                out.append(f'<p class="next"><b>Next check:</b> {_e(c.next_check)}</p>')
            out.append("</div></li>")
        out.append("</ol>")
    else:
        out.append('<p class="note">No cause ranked.</p>')
    if d.experiments:
        out.append("<h4>Experiments</h4><table><tr><th>axis</th><th>varied</th><th>result</th><th>detail</th>"
                   "<th>case</th></tr>")
        for x in d.experiments:
            res = '<span class="ok">pass</span>' if x.passed else '<span class="bad">FAIL</span>'
            out.append(f"<tr><td>{_e(x.axis)}</td><td>{_e(x.label)}</td><td>{res}</td><td>{_e(x.detail)}</td>"
                       f"<td><code>{_e(x.case)}</code></td></tr>")
        out.append("</table>")
    if d.minimal_case:
        out.append(f"<p><b>Minimal failing case:</b> <code>{_e(d.minimal_case)}</code></p>")
    if d.repro:
        out.append(f"<p><b>Standalone repro:</b> <code>{_e(d.repro)}</code> (run: <code>python "
                   f"{_e(d.repro)}</code>)</p>")
    out += [f'<p class="note">{_e(n)}</p>' for n in d.notes]
    for p in d.error_maps:
        path = Path(p)
        if path.is_file() and path.suffix.lower() == ".png":
            out.append(f'<div class="map"><img alt="error map {_e(path.name)}" src="{_data_uri(path)}">'
                       f'<div class="caption">{_e(path.name)}</div></div>')
        else:
            out.append(f'<p class="note">Error map not found: <code>{_e(p)}</code></p>')
    return out


def write_html(report: Report, out_path: str | Path, *, specs: Mapping[str, Spec] | Sequence[Spec] | None = None,
               diagnoses: Mapping[str, Any] | None = None, max_cases_per_spec: int = 5, maps: bool = True,
               maps_per_spec: int = 3, source: str | None = None, title: str = "kcheck report") -> Path:
    """Write ``report`` as one self-contained HTML file at ``out_path`` and return its path.

    ``specs`` (the Spec objects, or a mapping name -> Spec) lets the error maps of the first ``maps_per_spec``
    failing cases of each Spec be drawn (each case re-runs once; ``maps=False`` leaves them out); the Report
    itself holds names only. ``diagnoses`` maps a Spec name to the Diagnosis of ``kcheck debug``. ``source`` is
    the file named in the "Rerun:" lines. The maps are embedded as base64 data URIs: the file stands alone.
    """
    out_path = Path(out_path)
    by_name: dict[str, Spec] = {}
    if isinstance(specs, Mapping):
        by_name = dict(specs)
    elif specs is not None:
        by_name = {sp.name: sp for sp in specs}
    diags = dict(diagnoses or {})
    failed = any(s.verdict.value == "failed" for s in report.specs)
    verdict = "PASSED" if report.passed else ("FAILED" if failed else "NOT RUN")
    versions = ", ".join(f"{k} {v}" for k, v in report.versions.items())
    now = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f"<title>{_e(title)}: {verdict}</title><style>{_CSS}</style></head><body><main>",
             f'<h1>{_e(title)} <span class="verdict-{verdict.lower().replace(" ", "-")}">{verdict}</span></h1>',
             f'<p class="meta">{_e(report.device)}; {_e(versions)}; {len(report.specs)} Spec(s), '
             f"{len(report.cases)} cases; written {_e(now)}</p>"]
    parts += _summary(report, diags)
    # a warning every Spec carries (Triton's interpreter, ...) is said once, under the summary
    common = set.intersection(*(set(s.warnings) for s in report.specs)) if len(report.specs) > 1 else set()
    shown = [w for w in (report.specs[0].warnings if common else []) if w in common]
    parts += [f'<div class="warn">Every Spec: {_e(w)}</div>' for w in shown]
    with tempfile.TemporaryDirectory(prefix="kcheck-maps-") as tmp:
        work = Path(tmp)
        for s in report.specs:
            own = [w for w in s.warnings if w not in common]
            if s.passed and s.name not in diags and not own:
                continue
            parts += _spec_section(s, own, by_name.get(s.name), diags.get(s.name), source, max_cases_per_spec,
                                   maps_per_spec, maps, work)
    known = {s.name for s in report.specs}
    for name, d in diags.items():
        if name not in known:
            parts.append(f'<h2 id="{_anchor(name)}">{_e(name)}</h2>')
            parts += _diagnosis_html(d)
    parts.append("</main></body></html>")
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text("\n".join(parts), encoding="utf-8")
    return out_path
