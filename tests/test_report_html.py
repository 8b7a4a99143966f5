"""``gftpwb report --html``: the page is self-contained and deterministic, thresholds are marked on
the per-case charts, and a real browser (Debian's headless Chromium) renders it: every chart is in
the DOM as inline SVG, nothing logs to the console, nothing is loaded from anywhere, and the
screenshot shows drawn charts."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from support.browser import browser
from support.clihelp import gftpwb
from support.report_fixture import write_mixed

from gftpwb.core.charts import IntervalChart
from gftpwb.core.checks import Check
from gftpwb.core.report_charts import per_case_charts
from gftpwb.core.report_html import report_html
from gftpwb.shell.results_index import read_directory


class Dom(HTMLParser):
    """What the test looks for in a rendered page: figures and their SVGs, headings, every URL."""

    def __init__(self) -> None:
        super().__init__()
        self.figures = 0
        self.svgs_in_figures = 0
        self.in_figure = False
        self.headings: list[str] = []
        self.urls: list[str] = []
        self.scripts = 0
        self._heading = False

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "figure" and attributes.get("class") == "chart":
            self.figures += 1
            self.in_figure = True
        elif tag == "svg" and self.in_figure:
            self.svgs_in_figures += 1
        elif tag == "script":
            self.scripts += 1
        elif tag in ("h1", "h2", "h3", "h4"):
            self._heading = True
            self.headings.append("")
        for name, value in attrs:
            if name in ("src", "href", "xlink:href", "action", "data") and value:
                self.urls.append(value)

    def handle_endtag(self, tag):
        if tag == "figure":
            self.in_figure = False
        elif tag in ("h1", "h2", "h3", "h4"):
            self._heading = False

    def handle_data(self, data):
        if self._heading:
            self.headings[-1] += data


def fake_svg(chart) -> str:
    return f'<svg data-title="{chart.title}"></svg>'


@pytest.fixture
def base(tmp_path):
    """A results base with two results directories of the same scenario (so the trend has two points)."""
    write_mixed(tmp_path / "20261121T100000Z-mixed")
    write_mixed(tmp_path / "20261122T100000Z-mixed")
    return tmp_path


def test_thresholds_on_the_headline_axis_become_marks(base):
    summary = read_directory(str(base / "20261122T100000Z-mixed"))
    checks = [*summary.checks,
              Check("sweep", 0, "#000", "cv", "< 5%", 0.28, "28 %", False),  # not on the rate axis
              Check("other", 0, "#000", "median_rate", ">= 1MiB/s", 800.0, "800 MiB/s", True)]  # another test
    chart = next(c for c in per_case_charts(summary.cases, checks) if c.title.startswith("rate incl. set-up"))
    assert isinstance(chart, IntervalChart)
    marks = {p.label: [(m.value, m.ok, m.label) for m in p.marks] for p in chart.points}
    assert marks == {"sweep #000 -p 1 -len 1G (n=5)": [(900.0, False, "median_rate >= 900MiB/s")],
                     "sweep #001 -p 4 -len 1G (n=2)": [(900.0, True, "median_rate >= 900MiB/s")],
                     "stream #002 -len 1G (n=2)": []}
    assert "Thresholds (expect:)" in chart.note
    assert not any(p.marks for c in per_case_charts(summary.cases) for p in c.points)  # type: ignore[union-attr]


def test_the_page_is_self_contained_and_the_same_for_the_same_input(base):
    summaries = [read_directory(str(base / "20261122T100000Z-mixed"))]
    page = report_html(summaries, fake_svg, generator="gftpwb test")
    assert page == report_html(summaries, fake_svg, generator="gftpwb test")
    dom = Dom()
    dom.feed(page)
    assert dom.scripts == 0 and dom.urls == []
    titles = re.findall(r'data-title="([^"]+)"', page)
    assert "rate incl. set-up per case" in titles and "files/s per case" in titles
    assert "sweep #001 -p 4 -len 1G: rate over time" in titles and "tune: auto-tune ranking (exhaustive)" in titles
    assert "Expectations (1 of 2 violated)" in dom.headings and "Environment" in dom.headings


def test_chromium_renders_every_chart_offline(base, tmp_path):
    page, shot = tmp_path / "report.html", tmp_path / "report.png"
    out = gftpwb("report", str(base / "20261122T100000Z-mixed"), "--html", str(page))
    assert out.returncode == 0, out.stderr
    html = page.read_text()
    assert html.count("<svg") >= 8 and "<script" not in html and "threshold violated" in html

    rendered = browser("--dump-dom", page.as_uri())
    assert rendered.returncode == 0, rendered.stderr
    console = [line for line in rendered.stderr.splitlines() if ":CONSOLE" in line]
    assert console == []
    dom = Dom()
    dom.feed(rendered.stdout)
    # Per-case charts of guc and gfapi, rate over time of three cases, gfapi's per-thread chart, the
    # auto-tune's ranking and the trend across the two results directories: each a figure with its SVG.
    assert dom.figures == html.count('<figure class="chart">') >= 8
    assert dom.svgs_in_figures == dom.figures
    assert dom.scripts == 0 and all(u.startswith("#") for u in dom.urls)
    assert "Trend across earlier runs of this scenario" in dom.headings
    assert "sweep #001 -p 4 -len 1G: rate over time" in rendered.stdout

    snap = browser("--window-size=1280,2400", f"--screenshot={shot}", page.as_uri())
    assert snap.returncode == 0 and shot.stat().st_size > 20_000, snap.stderr
    from PIL import Image

    image = Image.open(shot).convert("RGB")
    assert image.size == (1280, 2400)
    colours = image.getcolors(maxcolors=1 << 20) or []
    assert len(colours) > 200  # text, tables and anti-aliased charts, not a blank page
    # The per-case chart's colours are on the page: the series blue and a violated threshold's red.
    counts = {colour: n for n, colour in colours}
    assert counts.get((0x1F, 0x5F, 0x99), 0) > 50 and counts.get((0xC0, 0x00, 0x20), 0) > 20


def test_html_write_errors_are_user_errors(base, tmp_path):
    bad = gftpwb("report", str(base / "20261122T100000Z-mixed"), "--html", str(tmp_path / "no" / "dir" / "r.html"))
    assert bad.returncode == 2 and bad.stderr.startswith("gftpwb: cannot write the HTML report to ")
    assert "Traceback" not in bad.stderr
    assert Path(base / "20261122T100000Z-mixed" / "results.jsonl").exists()


def test_a_per_case_chart_shows_at_most_60_cases_and_says_so():
    from gftpwb.core.records import ResultRecord
    from gftpwb.core.summary import summarize_cases

    records = [ResultRecord(scenario="s", test_id="t", run_id=f"t[{case}]/{r}", case=case, repeat=r, kind="guc",
                            host="local", argv=[], status="passed", params={"parallel": case},
                            rate_incl_setup_mib_s=100.0 + case + r) for case in range(70) for r in range(3)]
    (chart,) = per_case_charts(summarize_cases(records))
    assert isinstance(chart, IntervalChart) and len(chart.points) == 60
    assert chart.points[0].value == 101.0 and "The first 60 of 70 cases shown" in chart.note


def test_monitors_of_the_run_are_a_table_of_the_page(base):
    import dataclasses

    from gftpwb.core.monitors.summary import DirectoryMonitors

    summary = read_directory(str(base / "20261122T100000Z-mixed"))
    monitors = DirectoryMonitors(samples=12, types={"load": "cpu"},
                                 figures={"load": {"local": {"busy_pct": {"mean": 42.5, "max": 97.0, "n": 12}}}},
                                 runs={})
    page = report_html([dataclasses.replace(summary, monitors=monitors)], fake_svg, generator="gftpwb test")
    assert "<h3>Monitors</h3>" in page and "Monitors over the whole run (12 samples)" in page
    assert "<td>load</td><td>local</td><td>busy_pct</td>" in page and ">42.50<" in page
    assert "<h3>Monitors</h3>" not in report_html([summary], fake_svg, generator="gftpwb test")


STUDY = Path(__file__).resolve().parent / "golden" / "teragrid-study"  # a real lab run of the study scenario


def test_the_study_figures_are_charts_chromium_draws(tmp_path):
    """The TeraGrid study's figures (guc vs iperf3 by streams, efficiency, memory vs disk, striping),
    from a real lab run's journal: their numbers are the tables', and Chromium draws them offline."""
    from gftpwb.core.charts import LineChart
    from gftpwb.kinds.guc.charts import charts

    summary = read_directory(str(STUDY))
    made = {c.title: c for c in charts(summary.records, summary.samples)}
    assert list(made) == ["guc-vs-iperf3: guc vs iperf3 by parallel streams", "guc efficiency against iperf3",
                          "disk #003 -p 2: what limits disk to disk", "disk to disk / memory to memory",
                          "striped transfers: rate by stripes (data nodes per side)", "rate of each stripe"]
    streams = made["guc-vs-iperf3: guc vs iperf3 by parallel streams"]
    assert isinstance(streams, LineChart) and streams.integer_x
    assert {line.label: line.x for line in streams.lines} == {"iperf3 (receiver)": (1.0, 2.0),
                                                              "guc incl. set-up": (1.0, 2.0)}
    efficiency = made["guc efficiency against iperf3"]
    assert isinstance(efficiency, IntervalChart)
    assert [round(p.value, 2) for p in efficiency.points] == [96.04, 95.59]  # study-tables.json's, in %
    # 2 runs a side: too few for an interval of the ratio (3 a side), and the labels say so
    assert all(p.low is None and p.label.endswith("(n=2/2)") for p in efficiency.points)
    assert all(m.value == 95.0 and m.ok for p in efficiency.points for m in p.marks)
    limits = made["disk #003 -p 2: what limits disk to disk"]
    assert [p.label for p in limits.points] == ["memory to memory", "disk to disk", "probe: source read",  # type: ignore[union-attr]
                                                "probe: target write"]
    scaling = made["striped transfers: rate by stripes (data nodes per side)"]
    assert isinstance(scaling, LineChart) and [line.x for line in scaling.lines] == [(1.0, 2.0)]

    page, shot = tmp_path / "study.html", tmp_path / "study.png"
    out = gftpwb("report", str(STUDY), "--html", str(page))
    assert out.returncode == 0, out.stderr
    rendered = browser("--dump-dom", page.as_uri())
    assert rendered.returncode == 0, rendered.stderr
    assert [line for line in rendered.stderr.splitlines() if ":CONSOLE" in line] == []
    dom = Dom()
    dom.feed(rendered.stdout)
    assert dom.figures == dom.svgs_in_figures >= 6 + 2 and all(u.startswith("#") for u in dom.urls)
    for title in made:
        assert f">{title}<" in rendered.stdout  # the chart's title, as SVG text
    snap = browser("--window-size=1280,7000", f"--screenshot={shot}", page.as_uri())
    assert snap.returncode == 0, snap.stderr
    from PIL import Image

    colours = {colour: n for n, colour in Image.open(shot).convert("RGB").getcolors(maxcolors=1 << 20) or []}
    # the series blue, the highlighted bar's orange (disk to disk) and the met threshold's green are drawn
    assert colours.get((0x1F, 0x5F, 0x99), 0) > 500 and colours.get((0xD1, 0x63, 0x1C), 0) > 200
    assert colours.get((0x0A, 0x8A, 0x3A), 0) > 20
