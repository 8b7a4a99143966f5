"""``gftpwb report --html FILE``: one self-contained HTML page per report. Pure: the page is text
put together from the report data model; charts are drawn by a function the shell passes in
(``svg(chart) -> "<svg ...>"``, matplotlib in :mod:`gftpwb.shell.html_charts`).

The page needs nothing but itself: no script, no stylesheet, font or image from anywhere else;
charts are inline SVG. It holds, per results directory: the counts, the expectations checked
(``expect:``), each report section's tables (the same :class:`~gftpwb.core.registry.ReportTable`
the console prints) and charts (rate per case with CI whiskers, rate over time per run, and the
kinds' own: gfapi per host and per thread, an auto-tune's ranking), the trend of each case's median
across earlier runs of the scenario, stalls, and the environment of every host. The same input
gives the same bytes (no time of generation in it), so reports can be compared and committed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from html import escape
from typing import Any

from .charts import Chart
from .format import counts_text, short_error
from .harness.aggregate import concurrent_aggregates, copies_table
from .monitors.report import monitors_table
from .records import PASSED
from .registry import ReportTable
from .report import own_records, report_sections
from .report_charts import TrendPoint, over_time_charts, own_cases, per_case_charts, trend_charts
from .samples import WHOLE, gaps, stalls
from .slurm.report import allocation_text
from .summary import DirectorySummary

STYLE = """
body { font-family: 'DejaVu Sans', 'Bitstream Vera Sans', Verdana, sans-serif; margin: 1.5em auto;
       max-width: 1180px; padding: 0 1em; color: #1a1a1a; background: #fff; font-size: 14px; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; } h2 { border-bottom: 2px solid #345; margin-top: 2em; }
h3 { margin-top: 1.6em; color: #234; }
table { border-collapse: collapse; margin: 0.6em 0 0.3em; font-size: 13px; }
caption { caption-side: bottom; text-align: left; color: #555; font-size: 12px; padding-top: 0.3em; }
th, td { border: 1px solid #ccd; padding: 3px 8px; vertical-align: top; }
th { background: #eef1f5; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.red td { color: #b00020; } tr.dim td { color: #888; } tr.bold-green td { color: #0a6b2d; font-weight: bold; }
tr.ok td.verdict { color: #0a6b2d; font-weight: bold; } tr.violated td.verdict { color: #b00020; font-weight: bold; }
figure { margin: 1em 0; } figcaption { color: #555; font-size: 12px; max-width: 900px; }
svg { max-width: 100%; height: auto; }
svg text { font-family: 'DejaVu Sans', 'Bitstream Vera Sans', Verdana, sans-serif !important; }
.meta { color: #444; } .warn { color: #8a5a00; } ul.failures li { color: #b00020; }
nav ul { columns: 2; }
"""

Svg = Callable[[Chart], str]


def _cell(text: str, justify: str) -> str:
    cls = ' class="num"' if justify == "right" else ""
    return f"<td{cls}>{escape(text)}</td>"


def table_html(table: ReportTable) -> str:
    head = "".join(f"<th>{escape(name)}</th>" for name, _ in table.columns)
    rows = []
    for cells, style in table.rows:
        cls = f' class="{escape(style.replace(" ", "-"))}"' if style else ""
        rows.append(f"<tr{cls}>" + "".join(_cell(c, j) for c, (_, j) in zip(cells, table.columns, strict=False))
                    + "</tr>")
    caption = f"<caption>{escape(table.caption)}</caption>" if table.caption else ""
    return (f"<h4>{escape(table.title)}</h4><table>{caption}<thead><tr>{head}</tr></thead><tbody>"
            + "".join(rows) + "</tbody></table>")


def chart_html(chart: Chart, svg: Svg) -> str:
    note = f"<figcaption>{escape(chart.note)}</figcaption>" if chart.note else ""
    return f'<figure class="chart">{svg(chart)}{note}</figure>'


def _flatten(value: Any, prefix: str = "") -> list[tuple[str, str]]:
    if isinstance(value, dict):
        out: list[tuple[str, str]] = []
        for key, inner in value.items():
            out.extend(_flatten(inner, f"{prefix}.{key}" if prefix else str(key)))
        return out
    if isinstance(value, list):
        return [(prefix, " ".join(str(v) for v in value))]
    return [(prefix, "-" if value is None else str(value))]


def environment_html(meta: Mapping[str, Any]) -> str:
    """Every host's environment side by side (one column per host), as meta.json has it."""
    env = meta.get("environment")
    hosts = env.get("hosts") if isinstance(env, dict) else None
    if not isinstance(hosts, dict) or not hosts:
        return "<p class=\"meta\">No environment recorded (results written before gftpwb recorded it).</p>"
    flat = {host: dict(_flatten(facts)) for host, facts in hosts.items()}
    keys = list(dict.fromkeys(k for facts in flat.values() for k in facts))
    head = "<th>what</th>" + "".join(f"<th>{escape(h)}</th>" for h in flat)
    rows = "".join("<tr><td>" + escape(k) + "</td>" + "".join(f"<td>{escape(flat[h].get(k, '-'))}</td>" for h in flat)
                   + "</tr>" for k in keys)
    when = f"collected {env.get('collected_at')}, " if env.get("collected_at") else ""
    return (f"<p class=\"meta\">{escape(when)}gftpwb {escape(str(env.get('gftpwb_version', '?')))}</p>"
            f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")


def checks_html(summary: DirectorySummary) -> str:
    checks = summary.checks
    if not checks:
        return ""
    rows = []
    for c in checks:
        cls = "ok" if c.ok else "violated"
        rows.append(f'<tr class="{cls}"><td>{escape(c.test_id)}</td><td>{escape(c.case_text)}</td>'
                    f"<td>{escape(c.metric)} {escape(c.expression)}</td><td class=\"num\">{escape(c.value_text)}</td>"
                    f"<td class=\"verdict\">{'met' if c.ok else 'VIOLATED'}</td><td>{escape(c.note)}</td></tr>")
    violated = sum(1 for c in checks if not c.ok)
    head = "".join(f"<th>{h}</th>" for h in ("test", "case", "expect", "value", "verdict", "note"))
    return (f"<h3>Expectations ({violated} of {len(checks)} violated)</h3><table><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")


def samples_html(summary: DirectorySummary) -> str:
    lines = []
    for run_id, samples in summary.samples.items():
        whole = samples.series.get(WHOLE)
        if whole is None:
            continue
        spans = ([f"stalled for {b - a:.1f} s from {a:.1f} s" for a, b in stalls(whole)]
                 + [f"no progress report for {b - a:.1f} s from {a:.1f} s" for a, b in gaps(whole)])
        if spans:
            lines.append(f"<li>{escape(run_id)}: {escape('; '.join(spans))}</li>")
    return f"<h3>Stalls and gaps in progress</h3><ul class=\"warn\">{''.join(lines)}</ul>" if lines else ""


def directory_html(index: int, summary: DirectorySummary, svg: Svg, trend: Sequence[TrendPoint]) -> str:
    parts = [f'<section id="dir-{index}"><h2>{escape(summary.scenario)} <small>{escape(summary.path)}</small></h2>']
    planned = f" of {summary.planned} planned" if summary.planned is not None else ""
    not_run = f"; {len(summary.not_run)} not run" if summary.not_run else ""
    created = f"created {summary.created_at}; " if summary.created_at else ""
    parts.append(f"<p class=\"meta\">{escape(created)}{escape(counts_text(summary.counts))}{planned}{not_run}</p>")
    command = summary.meta.get("command")
    if isinstance(command, list):
        parts.append(f"<p class=\"meta\">command: <code>{escape(' '.join(str(c) for c in command))}</code></p>")
    slurm = allocation_text(summary.meta)
    if slurm:  # the Slurm nodes the slots (node1, ...) stood for
        parts.append(f"<p class=\"meta\">{escape(slurm)}</p>")
    parts.append(checks_html(summary))
    records = summary.records
    for section, section_records in report_sections(records, summary.kinds):
        parts.append(f"<h3>{escape(section.name.capitalize())}</h3>")
        parts.extend(table_html(t) for t in section.build(section_records))
        own = own_records(section, section_records, summary.kinds)
        if section.list_failures:
            failed = [r for r in own if r.status != PASSED]
            if failed:
                parts.append("<ul class=\"failures\">" + "".join(
                    f"<li>{escape(r.run_id)}: {escape(r.status)}: {escape(short_error(r.error))}</li>" for r in failed)
                    + "</ul>")
        ids = {id(r) for r in own}
        cases = [c for c in summary.cases if c.runs and id(c.runs[0].record) in ids]
        charts = [*per_case_charts(cases, summary.checks), *over_time_charts(own_cases(cases), summary.samples),
                  *section.build_charts(section_records, summary.samples)]
        parts.extend(chart_html(c, svg) for c in charts)
    together = concurrent_aggregates(records)
    if together:  # runs that started together (copies, hosts): what they moved at once, beside each run's own
        parts.append("<h3>Runs at the same time</h3>")
        parts.append(table_html(copies_table(together)))
    monitors = summary.monitors
    if monitors is not None and monitors.figures:
        parts.append("<h3>Monitors</h3>")
        parts.append(table_html(monitors_table(monitors.figures, monitors.types, monitors.samples)))
    parts.append(samples_html(summary))
    trends = trend_charts(trend, summary.path.rstrip("/").rsplit("/", 1)[-1])
    if trends:
        parts.append("<h3>Trend across earlier runs of this scenario</h3>")
        parts.extend(chart_html(c, svg) for c in trends)
    parts.append("<h3>Environment</h3>")
    parts.append(environment_html(summary.meta))
    for problem in summary.problems:
        parts.append(f"<p class=\"warn\">warning: {escape(problem)}</p>")
    parts.append("</section>")
    return "\n".join(p for p in parts if p)


def report_html(summaries: Sequence[DirectorySummary], svg: Svg, *, generator: str,
                trends: Mapping[str, Sequence[TrendPoint]] | None = None) -> str:
    """The whole page. ``trends`` maps a directory's path to its cases' medians in earlier runs."""
    trends = trends or {}
    title = ", ".join(dict.fromkeys(s.scenario for s in summaries)) or "results"
    nav = ""
    if len(summaries) > 1:
        nav = "<nav><ul>" + "".join(f'<li><a href="#dir-{i}">{escape(s.scenario)} {escape(s.path)}</a></li>'
                                    for i, s in enumerate(summaries)) + "</ul></nav>"
    body = "\n".join(directory_html(i, s, svg, trends.get(s.path, ())) for i, s in enumerate(summaries))
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<meta name=\"generator\" content=\"{escape(generator)}\">\n"
            f"<title>gftpwb report: {escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
            f"<header><h1>gftpwb report: {escape(title)}</h1><p class=\"meta\">{escape(generator)}. Rates in MiB/s "
            "(2^20 bytes per second). This page is self-contained: it loads nothing from anywhere.</p></header>\n"
            f"{nav}\n{body}\n</body>\n</html>\n")
