"""The figures of a scenario run in progress, for ``gftpwb run --metrics`` and ``--pushgateway``:
a bus subscriber as cheap as the TUI's live state (a few dictionary updates per event); the
families are made when asked (a scrape, a push).

Beside what finished runs say (:mod:`.families`, the same as ``report --openmetrics`` of the results
directory), a run in progress has:

* ``gftpwb_transfer_rate_bytes_per_second``: the rate the runs in flight report now (their latest
  progress sample: the instant rate where the program gives one, else its average; copies of a run
  add up), per case and host; a case with no run in flight has none;
* ``gftpwb_runs_in_flight{scenario}``;
* the monitors' latest sample of each figure (:func:`.names.monitor_metric`), labels ``scenario``,
  ``monitor``, ``host`` and ``device``, until that host's sampler ends.
"""

from __future__ import annotations

from dataclasses import dataclass

from gftpwb.core.events import (
    Event,
    ExpectationsChecked,
    MonitorSample,
    Progress,
    RunFinished,
    RunStarted,
    SamplerEnded,
    ScenarioFinished,
    ScenarioStarted,
)

from .families import LABELS, Labels, ResultFigures, case_label
from .model import GAUGE, Family
from .names import MIB, monitor_metric

MONITOR_LABELS = ("scenario", "monitor", "host", "device")


@dataclass
class _Flight:
    labels: Labels
    bytes: int = 0
    rate_mib_s: float | None = None


class LiveMetrics:
    """A bus subscriber; :meth:`families` is what a scrape or a push exposes now."""

    def __init__(self) -> None:
        self.results = ResultFigures()
        self.scenario = ""
        self._flights: dict[str, _Flight] = {}
        self._monitors: dict[tuple[str, str, str, str], float] = {}  # (name, monitor, host, device) -> value
        self._monitor_help: dict[str, str] = {}
        self.version = 0  # bumped on every change a push would carry (a finished run, checked thresholds)

    def __call__(self, event: Event) -> None:
        if isinstance(event, Progress):
            flight = self._flights.get(event.run_id)
            if flight is not None and event.channel is None:
                flight.bytes = max(flight.bytes, event.bytes)
                rate = event.rate_inst_mib_s if event.rate_inst_mib_s is not None else event.rate_avg_mib_s
                flight.rate_mib_s = rate
        elif isinstance(event, MonitorSample):
            if not event.error:
                for figure, value in event.values.items():
                    name, device, factor = monitor_metric(event.type, figure)
                    self._monitors[(name, event.monitor, event.host, device)] = value * factor
                    self._monitor_help.setdefault(name, f"Latest sample of the {event.type} monitors' "
                                                        f"{figure.rpartition('.')[2]}, in base units")
        elif isinstance(event, RunStarted):
            spec = event.spec
            self._flights[spec.run_id] = _Flight((spec.scenario, spec.test_id, case_label(spec.case), spec.host))
        elif isinstance(event, RunFinished):
            flight = self._flights.pop(event.record.run_id, None)
            self.results.add(event.record, moved=flight.bytes if flight is not None else None)
            self.version += 1
        elif isinstance(event, ExpectationsChecked):
            self.results.check(event.checks)
            self.version += 1
        elif isinstance(event, SamplerEnded):
            self._monitors = {key: value for key, value in self._monitors.items() if key[2] != event.host}
        elif isinstance(event, ScenarioStarted):
            self.scenario = self.results.scenario = event.scenario
            self.results.planned = len(event.plan) - len(event.skipped_run_ids)
            self.version += 1
        elif isinstance(event, ScenarioFinished):
            self._flights.clear()
            self.version += 1

    def families(self) -> list[Family]:
        flight_bytes: dict[Labels, float] = {}
        rates: dict[Labels, float] = {}
        for flight in self._flights.values():
            flight_bytes[flight.labels] = flight_bytes.get(flight.labels, 0.0) + flight.bytes
            if flight.rate_mib_s is not None:
                rates[flight.labels] = rates.get(flight.labels, 0.0) + flight.rate_mib_s * MIB
        out = self.results.families(flight_bytes=flight_bytes)
        rate = Family("gftpwb_transfer_rate_bytes_per_second", GAUGE,
                      "Rate the runs in flight report now (instant where the program gives one, else average)",
                      LABELS)
        for labels, value in sorted(rates.items()):
            rate.add(labels, value)
        flying = Family("gftpwb_runs_in_flight", GAUGE, "Runs started and not finished", ("scenario",))
        if self.scenario:
            flying.add((self.scenario,), len(self._flights))
        out += [family for family in (rate, flying) if family.samples]
        monitors: dict[str, Family] = {}
        for (name, monitor, host, device), value in sorted(self._monitors.items()):
            family = monitors.get(name)
            if family is None:
                family = monitors[name] = Family(name, GAUGE, self._monitor_help[name], MONITOR_LABELS)
            family.add((self.scenario, monitor, host, device), value)
        return out + list(monitors.values())
