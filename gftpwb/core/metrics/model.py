"""A metric family as plain data: the shell hands it to prometheus_client unchanged.

Names follow Prometheus' conventions (https://prometheus.io/docs/practices/naming/): base units
(``_bytes``, ``_seconds``, ratios instead of percentages), the unit last, and counters named without
their ``_total``, which the exposition adds (as prometheus_client's ``CounterMetricFamily`` does).
"""

from __future__ import annotations

from dataclasses import dataclass, field

GAUGE = "gauge"
COUNTER = "counter"
PREFIX = "gftpwb_"


@dataclass
class Family:
    """One metric family: its samples are (label values in the order of ``labels``, value)."""

    name: str
    type: str  # GAUGE or COUNTER
    help: str
    labels: tuple[str, ...]
    samples: list[tuple[tuple[str, ...], float]] = field(default_factory=list)

    def add(self, values: tuple[str, ...], value: float) -> None:
        self.samples.append((values, float(value)))

    @property
    def exposed_name(self) -> str:
        """The sample name as it is exposed (a counter's with ``_total``)."""
        return f"{self.name}_total" if self.type == COUNTER else self.name
