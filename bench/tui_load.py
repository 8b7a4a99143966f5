"""TUI under load: events/s sustained and key-press latency, coalesced (the workbench) vs one message
per event (the naive design the issue warns about), side by side in one invocation.

A producer on the app's event loop publishes telemetry on an EventBus exactly as the executor does
(WorkerProgress from hosts x threads, Progress and OutputLine lines), at a target rate or as fast as
it can. Meanwhile a probe presses a key every ``--key-every`` seconds and measures, from posting the
key event, (a) until its action ran and (b) until the next frame was composed after it. Modes run in
interleaved rounds so machine noise hits them alike; medians (and the 90th percentile) are reported.

The app runs headless (Textual's headless driver composes every frame but writes nothing), which
measures the work the UI does, not the terminal emulator.

``--monitor-hz N`` adds each host's monitor samples (cpu, memory, net, tcp, N a second each, counted
in the events/s) to the loaded modes, so the run view shows its monitors panel, and one more mode: the
paced load without them (panel hidden), in the same rounds, for what the panel costs.

    .venv/bin/python bench/tui_load.py --seconds 6 --rounds 5 --view threads
    .venv/bin/python bench/tui_load.py --seconds 6 --rounds 3 --view run --monitor-hz 5 --size 160x50
    .venv/bin/python bench/tui_load.py --aggregator-only --rounds 5
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Log

from gftpwb.core.bus import EventBus
from gftpwb.core.events import (
    MonitorSample,
    OutputLine,
    Progress,
    RunStarted,
    SamplerStarted,
    ScenarioStarted,
    WorkerProgress,
)
from gftpwb.core.live.state import LiveState
from gftpwb.core.specs import RunSpec
from gftpwb.tui.app import WorkbenchApp
from gftpwb.tui.views import ThreadsView
from gftpwb.tui.widgets import FastTable

MIB = 1048576


class ProbeApp(WorkbenchApp):
    """The workbench plus a probe key (F12) whose action and next frame are timed."""

    BINDINGS: ClassVar[list[BindingType]] = [*WorkbenchApp.BINDINGS, Binding("f12", "probe", "probe", show=False)]

    def __init__(self, **kwargs) -> None:
        super().__init__(None, **kwargs)
        self.posted_at = 0.0
        self.handled: list[float] = []
        self.painted: list[float] = []

    def action_probe(self) -> None:
        now = time.perf_counter()
        self.handled.append(now - self.posted_at)
        posted = self.posted_at
        view = self.query_one(ThreadsView)
        view.sort_reverse = not view.sort_reverse  # a visible change, drawn now as a real key would
        view.refresh_view()
        self.call_after_refresh(lambda: self.painted.append(time.perf_counter() - posted))


class EventMessage(Message):
    def __init__(self, event) -> None:
        super().__init__()
        self.event = event


class NaiveApp(ProbeApp):
    """One Textual message per event, each applied at once to the widget it changes (the thread's row,
    a log line): no aggregator timer doing the coalescing. The table is laid out by a first snapshot
    so rows exist; after that only the message handler touches it, one row per event."""

    def __init__(self, **kwargs) -> None:
        super().__init__(refresh_s=3600.0, **kwargs)
        self._positions: dict[str, int] = {}

    def subscriber(self, event) -> None:
        self.post_message(EventMessage(event))

    def on_event_message(self, message: EventMessage) -> None:
        event = message.event
        self.live(event)
        if isinstance(event, WorkerProgress):
            table = self.query_one("#thread-table", FastTable)
            key = f"{event.run_id}|{event.host}|{event.thread}"
            if key not in self._positions:
                self.query_one(ThreadsView).refresh_view()  # a new row: lay the table out once
                self._positions = {k: i for i, k in enumerate(table.keys)}
                return
            elapsed = event.elapsed_s or 1.0
            table.set_row(key, [event.run_id, event.host, str(event.thread),
                                f"{100 * event.files / (event.files_total or 1):.0f}", f"{event.bytes / MIB:.1f}",
                                f"{event.bytes / MIB / elapsed:.1f}", "",  # "": no bar (its peak is not known here)
                                f"{event.ios / elapsed:.0f}",
                                f"{event.files / elapsed:.1f}", event.state])
        elif isinstance(event, OutputLine):
            self.query_one("#log", Log).write_line(event.text)


def spec(run_id: str) -> RunSpec:
    return RunSpec(run_id=run_id, scenario="bench", test_id="load", case=0, repeat=0, kind="gfapi", host="c1",
                   argv=("gfapi-worker",), length_bytes=64 << 30)


#: The monitors each host's sampler reads in the load (``--monitor-hz`` > 0): the run view's monitors
#: panel then has a row per monitor and host, its sparkline and figures redrawn as samples come.
MONITORS = ("cpu", "memory", "net", "tcp")


def monitor_values(kind: str, n: int) -> dict[str, float]:
    """Plausible figures of one reading (names as the readers give them), changing every sample."""
    wave = n % 17
    if kind == "cpu":
        return {"busy_pct": 30.0 + wave, "iowait_pct": 1.5, "load1": 1.0 + wave / 10}
    if kind == "memory":
        return {"used_mib": 4000.0 + wave, "total_mib": 16000.0, "dirty_mib": 12.0 + wave}
    if kind == "net":
        return {"eth0.rx_mib_s": 900.0 + wave, "eth0.tx_mib_s": 20.0, "lo.rx_mib_s": 0.01, "lo.tx_mib_s": 0.01}
    return {"connections": 4.0, "retrans_s": float(wave % 3), "rtt_ms_mean": 0.4, "cwnd_mean": 87.0,
            "delivery_mbit_s": 7200.0 + wave}


class Producer:
    """Telemetry of ``hosts`` x ``threads`` workers plus guc-like progress and output lines, and, with
    ``monitor_hz``, each host's monitor samples (:data:`MONITORS`) at that rate, as a sampler sends them."""

    def __init__(self, bus: EventBus, hosts: int, threads: int, monitor_hz: float = 0.0):
        self.bus = bus
        self.keys = [(f"c{h + 1}", t) for h in range(hosts) for t in range(threads)]
        self.hosts = [f"c{h + 1}" for h in range(hosts)]
        self.monitor_hz = monitor_hz
        self.sampled = 0  # sampling rounds published (each: every monitor on every host)
        self.samples = 0  # MonitorSample events published (counted in n too)
        self.n = 0
        self.t0 = time.monotonic()
        self.run = spec("load/0")
        if monitor_hz > 0:  # samplers start before the scenario, as the executor starts them
            for host in self.hosts:
                bus.publish(SamplerStarted(host=host, monitors=MONITORS, clock_offset_s=0.0, clock_uncertainty_s=0.0))
        bus.publish(ScenarioStarted(scenario="bench", results_dir="bench", plan=(self.run,)))
        bus.publish(RunStarted(spec=self.run, argv=self.run.argv, started_at=""))

    def sample(self) -> int:
        """Publish the sampling rounds due by now; how many events that was."""
        now = time.monotonic()
        published = 0
        while self.monitor_hz > 0 and self.sampled < int((now - self.t0) * self.monitor_hz) + 1:
            self.sampled += 1
            for host in self.hosts:
                for kind in MONITORS:
                    self.bus.publish(MonitorSample(monitor=kind, type=kind, host=host, sampled_t=now, utc="",
                                                   span_s=1 / self.monitor_hz,
                                                   values=monitor_values(kind, self.sampled)))
                    published += 1
        self.samples += published
        self.n += published
        return published

    def publish(self, count: int) -> None:
        count -= self.sample()
        for _ in range(max(count, 0)):
            n = self.n
            self.n += 1
            elapsed = time.monotonic() - self.t0
            kind = n % 10
            if kind < 8:
                host, thread = self.keys[n % len(self.keys)]
                nbytes = int(elapsed * 50 * MIB) + n
                self.bus.publish(WorkerProgress(run_id="load/0", host=host, thread=thread, state="running",
                                                files=n // 7, bytes=nbytes, ios=n, elapsed_s=elapsed,
                                                files_total=1_000_000))
            elif kind == 8:
                self.bus.publish(Progress(run_id="load/0", bytes=n * MIB, rate_avg_mib_s=900.0,
                                          rate_inst_mib_s=900.0 + n % 50, elapsed_s=elapsed, channel=f"s{n % 8}"))
            else:
                self.bus.publish(OutputLine(run_id="load/0", stream="stdout", text=f"worker line {n}"))


async def measure(app: ProbeApp, *, seconds: float, rate: float | None, key_every: float, hosts: int,
                  threads: int, view: str, naive: bool, size: tuple[int, int] = (80, 24),
                  monitor_hz: float = 0.0) -> dict[str, float]:
    async with app.run_test(size=size) as pilot:
        await pilot.press(str(["scenario", "run", "threads", "tune", "results"].index(view) + 1))
        await pilot.pause()
        bus = EventBus()
        bus.subscribe(app.subscriber if naive else app.live)  # type: ignore[attr-defined]
        producer = Producer(bus, hosts, threads, monitor_hz)
        stop = time.monotonic() + seconds

        async def produce() -> None:
            tick = 0.01
            next_at = time.monotonic()
            while time.monotonic() < stop:
                if rate is None:
                    producer.publish(200)
                    await asyncio.sleep(0)
                else:
                    # Catch up on what was due (as pipes deliver a backlog), then sleep to the next tick.
                    due = int((time.monotonic() - producer.t0) * rate) - producer.n
                    if due > 0:
                        producer.publish(due)
                    next_at += tick
                    await asyncio.sleep(max(0.0, next_at - time.monotonic()))

        pressed = 0

        async def probe() -> None:
            nonlocal pressed
            await asyncio.sleep(0.5)  # let the load settle
            while time.monotonic() < stop - key_every:
                if len(app.handled) == pressed:  # one key at a time, as a person types
                    app.posted_at = time.perf_counter()
                    pressed += 1
                    app.post_message(events.Key("f12", None))
                await asyncio.sleep(key_every)

        cpu0, wall0 = time.process_time(), time.monotonic()
        await asyncio.gather(produce(), probe())
        wall = time.monotonic() - wall0
        cpu = time.process_time() - cpu0
        backlog = app._message_queue.qsize()  # messages the app had not handled when the load stopped
        deadline = time.monotonic() + 30
        while len(app.handled) < pressed and time.monotonic() < deadline:  # a late key still counts, late
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.2)
    return {"events_s": producer.n / wall, "samples_s": producer.samples / wall, "cpu": cpu / wall,
            "handled": app.handled, "painted": app.painted,
            "presses": pressed, "backlog": backlog}


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=6.0, help="length of each measurement")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds of every mode")
    parser.add_argument("--rate", type=float, default=5000.0, help="target events/s of the paced modes")
    parser.add_argument("--key-every", type=float, default=0.25, help="seconds between probe key presses")
    parser.add_argument("--hosts", type=int, default=4)
    parser.add_argument("--threads", type=int, default=16, help="worker threads per host")
    parser.add_argument("--view", default="threads", choices=("run", "threads"), help="view shown under load")
    parser.add_argument("--size", default="80x24", help="terminal size, WIDTHxHEIGHT (the charts grow with it)")
    parser.add_argument("--monitor-hz", type=float, default=0.0,
                        help="monitor samples per second per monitor and host (cpu, memory, net, tcp), counted in "
                             "the events/s; the run view then shows its monitors panel")
    parser.add_argument("--aggregator-only", action="store_true",
                        help="only measure events/s through an EventBus into LiveState, without a UI")
    args = parser.parse_args()
    width, height = (int(n) for n in args.size.lower().split("x"))
    size = (width, height)
    if args.aggregator_only:
        rates = []
        for _ in range(args.rounds):
            bus = EventBus()
            bus.subscribe(LiveState())
            producer = Producer(bus, args.hosts, args.threads, args.monitor_hz)
            start = time.perf_counter()
            producer.publish(100_000)
            rates.append(100_000 / (time.perf_counter() - start))
        print(f"aggregator alone (events built, published, absorbed): median {statistics.median(rates):,.0f} "
              f"events/s over {args.rounds} rounds of 100,000 ({1e6 / statistics.median(rates):.1f} µs per event)")
        return

    hz = args.monitor_hz
    modes = [
        ("idle (no events)", dict(rate=0.0, naive=False, monitor_hz=0.0)),
        (f"coalesced, {args.rate:.0f} ev/s", dict(rate=args.rate, naive=False, monitor_hz=hz)),
        ("coalesced, as fast as possible", dict(rate=None, naive=False, monitor_hz=hz)),
        (f"one message per event, {args.rate:.0f} ev/s", dict(rate=args.rate, naive=True, monitor_hz=hz)),
    ]
    if hz:  # the same load without monitor samples, in the same rounds: what the panel itself costs
        modes.insert(2, (f"coalesced, {args.rate:.0f} ev/s, no monitor samples",
                         dict(rate=args.rate, naive=False, monitor_hz=0.0)))
    results: dict[str, list[dict]] = {name: [] for name, _ in modes}
    for round_no in range(args.rounds):
        for name, mode in modes:
            app = NaiveApp() if mode["naive"] else ProbeApp()
            result = await measure(app, seconds=args.seconds, rate=mode["rate"], key_every=args.key_every,
                                   hosts=args.hosts, threads=args.threads, view=args.view, naive=mode["naive"],
                                   size=size, monitor_hz=mode["monitor_hz"])
            results[name].append(result)
            keys = result["handled"]
            print(f"round {round_no + 1} {name}: {result['events_s']:.0f} ev/s, cpu {result['cpu']:.0%}, "
                  f"{len(keys)}/{result['presses']} keys, median {pct(keys, 0.5) * 1000:.1f} ms", flush=True)

    print(f"\n{args.hosts} hosts x {args.threads} threads, {args.view} view, {args.size} headless, "
          f"{args.rounds} rounds x {args.seconds:g} s, a key every {args.key_every:g} s"
          + (f", monitors {', '.join(MONITORS)} per host at {args.monitor_hz:g} Hz" if args.monitor_hz else "")
          + "\n")
    print("| mode | events/s sustained (median) | CPU | key → action: median | p90 | key → next frame: median "
          "| p90 | keys handled / pressed | queue left |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, _ in modes:
        runs = results[name]
        handled = [v for r in runs for v in r["handled"]]
        painted = [v for r in runs for v in r["painted"]]
        pressed = sum(r["presses"] for r in runs)
        rate = statistics.median(r["events_s"] for r in runs)
        cpu = statistics.median(r["cpu"] for r in runs)
        backlog = statistics.median(r["backlog"] for r in runs)
        ms = [f"{pct(values, q) * 1000:.1f} ms" for values in (handled, painted) for q in (0.5, 0.9)]
        print(f"| {name} | {rate:,.0f} | {cpu:.0%} | {' | '.join(ms)} | {len(handled)}/{pressed} | {backlog:,.0f} |")


if __name__ == "__main__":
    asyncio.run(main())
