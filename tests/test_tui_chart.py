"""The run view's rate chart as it is drawn: its y axis reads as a linear scale at every size (each
label on its own row, the same value and the same number of rows apart), and it draws no fall of the
rate for a time nothing has been reported of yet (a run's first seconds, before guc's first report),
nor for the second that has just begun (it ends with the last whole second while a run is on)."""

from __future__ import annotations

import itertools
import re

import plotext
import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st
from plotext._figure import _figure_class
from support.fuzzseed import FUZZ_SEED, say_seed
from support.live_events import record
from support.quickstart_events import mid_run_events, write_quickstart
from support.tui import NOW, app_for

from gftpwb.core.events import Progress, RunFinished, RunStarted, ScenarioStarted
from gftpwb.core.live import read
from gftpwb.core.live.models import MIB
from gftpwb.core.live.state import LiveState
from gftpwb.tui.app import WorkbenchApp
from gftpwb.tui.widgets import FRAME_ROWS, RateChart, y_axis


@pytest.fixture
def scenario_path(tmp_path, monkeypatch) -> str:
    monkeypatch.chdir(tmp_path)
    return write_quickstart(tmp_path)


LABEL = re.compile(r"^\s*([0-9.]+)┤")


def y_labels(lines: list[str]) -> list[tuple[int, float]]:
    """(row, value) of each y-axis label of a plotext figure drawn as text, top to bottom."""
    return [(row, float(m.group(1))) for row, line in enumerate(lines) if (m := LABEL.match(line))]


def assert_linear(labels: list[tuple[int, float]], at_least: int = 2) -> None:
    assert len(labels) >= at_least, labels
    rows = [row for row, _ in labels]
    values = [value for _, value in labels]
    assert values[-1] == 0.0  # the axis starts at 0, at the bottom
    row_gaps = {b - a for a, b in itertools.pairwise(rows)}
    value_gaps = [a - b for a, b in itertools.pairwise(values)]
    assert len(row_gaps) <= 1, f"labels not evenly spaced in rows: {labels}"
    assert max(value_gaps) - min(value_gaps) <= 1e-9 * max(values), f"labels not evenly spaced in value: {labels}"


def drawn(chart: RateChart) -> list[str]:
    return plotext.uncolorize(chart.plt.build()).splitlines()


@pytest.mark.parametrize("size", [(80, 24), (160, 50)], ids=["80x24", "160x50"])
async def test_the_rate_charts_y_axis_is_linear_mid_run(scenario_path, size):
    """The snapshot's mid-run moment: at 80x24 plotext put 1606.0, 1338.3, 1070.7, 535.3, 267.7, 0.0
    (803.0 missing: two ticks on one row)."""
    app = app_for(scenario_path, mid_run_events(scenario_path))
    async with app.run_test(size=size) as pilot:
        for event in mid_run_events(scenario_path):
            app.live(event)
        await pilot.press("2")
        app.draw(force=True)
        await pilot.pause()
        chart = app.query_one("#spark", RateChart)
        labels = y_labels(drawn(chart))
        assert_linear(labels, at_least=5)
        step = labels[0][1] - labels[1][1]
        assert labels[0][1] + step > read.rate_chart(app.live, NOW, 10).peak  # the axis reaches the peak


@seed(FUZZ_SEED)
@settings(max_examples=300)
@given(high=st.floats(min_value=1e-3, max_value=1e7), height=st.integers(min_value=FRAME_ROWS + 2, max_value=60))
def test_every_label_of_the_y_axis_is_drawn_evenly_spaced(high, height):
    """Whatever the peak and the height, plotext draws every label :func:`y_axis` gives, on rows the
    same distance apart, and the axis reaches the peak."""
    say_seed()
    rows = height - FRAME_ROWS
    top, values, texts = y_axis(high, rows)
    assert top >= high
    figure = _figure_class()
    figure.plotsize(80, height)
    figure._set_size(80, height)  # as textual-plotext draws it
    figure.xlabel("seconds")
    figure.ylabel("MiB/s")
    figure.plot([1.0, 2.0, 3.0], [0.0, high, high / 2], marker="braille")
    figure.ylim(0, top)
    figure.yticks(values, texts)
    labels = y_labels(plotext.uncolorize(figure.build()).splitlines())
    assert [value for _, value in labels] == [float(t) for t in reversed(texts)]
    assert_linear(labels)


def test_the_axis_steps_read_well():
    """The roundest step that keeps the top near the peak; on 80x24's 6 rows none does, and two
    significant digits keep the chart's height (a step of 500 would leave 40 % of it empty)."""
    assert y_axis(1533.0, 6) == (1550.0, [0.0, 310.0, 620.0, 930.0, 1240.0, 1550.0],
                                 ["0", "310", "620", "930", "1240", "1550"])
    assert y_axis(651.0, 28)[2] == ["0", "100", "200", "300", "400", "500", "600"]  # not 0, 86, 172, ...
    top, _values, texts = y_axis(1000.0, 42)  # 160x50: a label every few rows, not on all 42
    assert texts == ["0", "200", "400", "600", "800", "1000"] and top >= 1000.0
    assert y_axis(0.0, 6)[2] == ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]  # nothing moved: 0 to 1


# --- no fall to 0 for what is not reported yet ------------------------------------------------------

T0 = 1000.0


def _two_runs(live: LiveState, scenario_path: str) -> None:
    """A run that moved 1000 MiB/s for 4 s, then the next one started and has not reported yet."""
    from gftpwb.core.dsl.loader import load_scenario
    from gftpwb.core.plan import plan

    specs = plan(load_scenario(scenario_path))
    first, second = specs[0], specs[2]  # the second one reports progress (parallel streams: -vb)
    live(ScenarioStarted(scenario="quickstart", results_dir="r", plan=tuple(specs), t=T0))
    live(RunStarted(spec=first, argv=first.argv, started_at="", t=T0))
    for n in range(1, 5):
        live(Progress(run_id=first.run_id, bytes=n * 1000 * MIB, rate_avg_mib_s=1000.0, rate_inst_mib_s=1000.0,
                      elapsed_s=float(n), length_bytes=4000 * MIB, t=T0 + n))
    live(RunFinished(record=record(first, "passed", 4000 * MIB, 4.0), t=T0 + 4.0))
    live(RunStarted(spec=second, argv=second.argv, started_at="", t=T0 + 4.0))


def test_the_chart_ends_where_the_runs_in_flight_last_reported(scenario_path):
    """4.6 s after the second run started it has not reported (guc reports every 5 s between two
    servers): the chart stops at its start instead of drawing the rate falling to 0 for those seconds;
    its first report then fills them in."""
    live = LiveState()
    _two_runs(live, scenario_path)
    now = T0 + 8.6
    chart = read.rate_chart(live, now, 60)
    assert chart.total and min(chart.total) > 900.0, chart.total  # no bucket of the unreported seconds
    assert chart.seconds[-1] == pytest.approx(4.0)
    second = next(iter(live.running.values()))
    live(Progress(run_id=second.spec.run_id, bytes=4600 * MIB, rate_avg_mib_s=1000.0, rate_inst_mib_s=1000.0,
                  elapsed_s=4.6, length_bytes=8000 * MIB, t=now))
    chart = read.rate_chart(live, now, 60)
    assert chart.seconds[-1] == pytest.approx(8.0) and min(chart.total) > 900.0, chart.total  # the last whole second


async def test_the_run_view_says_it_waits_for_the_first_report(scenario_path):
    """Until the run in flight reports, the run view says what it waits for (its kind's words) where
    "0 %   moved 0 B" stood, and the rate now is not known ("-"), not 0.0 MiB/s."""
    app = WorkbenchApp(scenario_path, results_base="results", clock=lambda: T0 + 8.6, stable=True, refresh_s=0.1)
    async with app.run_test(size=(80, 24)) as pilot:
        _two_runs(app.live, scenario_path)
        await pilot.press("2")
        app.draw(force=True)
        await pilot.pause()
        progress = str(app.query_one("#run-eta").render())
        assert progress.startswith("waiting for guc's first progress report"), progress
        assert "moved 0 B" not in progress
        rates = str(app.query_one("#run-rates").render())
        assert rates.startswith("now - MiB/s"), rates


def test_the_chart_ends_with_the_last_whole_second_before_an_unreported_run(scenario_path):
    """The first run ends 0.3 s into a second and the next starts then: that second is not whole yet
    (the next run's bytes for its rest are unknown), so the chart ends with the second before it; a
    scenario whose first run has not reported has no chart yet ("no data moved yet"), not a 0."""
    from gftpwb.core.dsl.loader import load_scenario
    from gftpwb.core.plan import plan

    specs = plan(load_scenario(scenario_path))
    first, second = specs[0], specs[2]
    live = LiveState()
    live(ScenarioStarted(scenario="quickstart", results_dir="r", plan=tuple(specs), t=T0))
    live(RunStarted(spec=first, argv=first.argv, started_at="", t=T0 + 0.05))
    assert read.rate_chart(live, T0 + 3.0, 60).total == ()
    live(Progress(run_id=first.run_id, bytes=4250 * MIB, rate_avg_mib_s=1000.0, rate_inst_mib_s=1000.0,
                  elapsed_s=4.25, length_bytes=4250 * MIB, t=T0 + 4.3))
    live(RunFinished(record=record(first, "passed", 4250 * MIB, 4.25), t=T0 + 4.3))
    live(RunStarted(spec=second, argv=second.argv, started_at="", t=T0 + 4.3))
    chart = read.rate_chart(live, T0 + 7.0, 60)
    assert chart.seconds[-1] == pytest.approx(4.0) and min(chart.total[1:]) > 900.0, chart
