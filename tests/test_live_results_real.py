"""Results out while they happen, against the real parts: real guc transfers from the lab's GridFTP
server (and a real libgfapi run for per-thread events) piped as JSON lines into a reader that checks
every line against schemas/events.schema.json as it arrives; Debian's prometheus scraping
``--metrics`` during the run and answering for the series afterwards; prometheus-pushgateway
receiving the pushes; node_exporter's textfile collector reading ``report --openmetrics``; promtool
linting what is exposed.

The second transfer is long on purpose and is stopped by the test (Ctrl-C) once Prometheus and the
pushgateway have what they must have while a run is in flight: no fixed sleeps, no timing."""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import textwrap
import threading
import uuid
from pathlib import Path

import jsonschema
import pytest
from prometheus_client.parser import text_string_to_metric_families
from support.clihelp import gftpwb
from support.polling import eventually
from support.promlab import START_TIMEOUT_S, http_get, node_exporter, prometheus, pushgateway, query

from gftpwb.shell.lab.gridftp import free_port

pytestmark = [pytest.mark.real, pytest.mark.slow]
ROOT = Path(__file__).resolve().parent.parent
VALIDATOR = jsonschema.Draft7Validator(json.loads((ROOT / "schemas" / "events.schema.json").read_text()))
GFTPWB = [sys.executable, "-m", "gftpwb"]


class StreamReader:
    """Reads a run's stdout line by line in a thread; each line is checked against the schema the
    moment it arrives, and kept with whether the run was still going then."""

    def __init__(self, proc: subprocess.Popen):
        self.proc = proc
        self.lines: list[dict] = []
        self.problems: list[str] = []
        self.arrivals: queue.Queue[dict] = queue.Queue()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        for raw in self.proc.stdout:
            running = self.proc.poll() is None
            try:
                data = json.loads(raw)
            except ValueError as exc:
                self.problems.append(f"not JSON: {raw!r} ({exc})")
                continue
            self.problems += [f"{data.get('event')}: {e.message}" for e in VALIDATOR.iter_errors(data)]
            data["_running"] = running
            self.lines.append(data)
            self.arrivals.put(data)

    def next_where(self, match, what: str) -> dict:
        def find():
            while True:
                try:
                    data = self.arrivals.get_nowait()
                except queue.Empty:
                    return None
                if match(data):
                    return data

        return eventually(find, what, timeout=START_TIMEOUT_S, step=0.2)

    def events(self, name: str) -> list[dict]:
        return [d for d in self.lines if d["event"] == name]


def samples(text: str) -> dict[tuple[str, frozenset], float]:
    """Every sample of an exposition, by name and labels (job and instance, the gateway's, left out)."""
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            labels = frozenset((k, v) for k, v in s.labels.items() if k not in ("job", "instance"))
            out[(s.name, labels)] = s.value
    return out


def find(found: dict, name: str, **labels: str) -> float | None:
    for (sample, have), value in found.items():
        if sample == name and set(labels.items()) <= have:
            return value
    return None


def promtool_check(text: str) -> None:
    out = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True)
    assert out.returncode == 0 and not out.stdout and not out.stderr, out.stdout + out.stderr


def guc_scenario(tmp_path: Path, url: str) -> str:
    path = tmp_path / "live.yaml"
    path.write_text(textwrap.dedent(f"""\
        version: 1
        name: live
        monitors:
          - {{id: load, type: cpu, on: local, interval: 0.5s}}
        tests:
          - id: short
            kind: guc
            source: {url}/dev/zero
            target: file:///dev/null
            options: {{length: 1G}}
            timeout: 120s
            expect: {{median_rate: ">= 1MiB/s"}}
          - id: long
            kind: guc
            source: {url}/dev/zero
            target: file:///dev/null
            options: {{length: 100000G}}
            timeout: 900s
        """))
    return str(path)


@pytest.fixture
def gateway(tmp_path):
    server = pushgateway(tmp_path)
    yield server
    server.stop()


def test_a_real_run_streams_events_feeds_prometheus_and_the_pushgateway(tmp_path, gridftp, gateway):
    port = free_port()
    scraper = prometheus(tmp_path, [f"127.0.0.1:{port}"])
    try:
        _run_and_check(tmp_path, gridftp, gateway, scraper, port)
    finally:
        scraper.stop()


def _run_and_check(tmp_path, gridftp, gateway, scraper, port):
    results = tmp_path / "results"
    stderr = open(tmp_path / "stderr.txt", "w+")  # noqa: SIM115 (read back after the run)
    proc = subprocess.Popen([*GFTPWB, "run", guc_scenario(tmp_path, gridftp.url), "--results", str(results),
                             "--progress", "never", "--events", "jsonl", "--metrics", f"127.0.0.1:{port}",
                             "--pushgateway", gateway.url], stdout=subprocess.PIPE, stderr=stderr, text=True)
    try:
        reader = StreamReader(proc)
        first = reader.next_where(lambda d: d["event"] == "run-finished", "the first run's run-finished line")
        assert first["run_id"] == "short/0" and first["status"] == "passed" and first["_running"]
        # Pushed at the end of that run, while the next one goes on.
        pushed = eventually(lambda: find(samples(gateway.get("/metrics")), "gftpwb_runs_total", test="short",
                                         status="passed", scenario="live"), "the first run's push",
                            timeout=START_TIMEOUT_S, step=0.2)
        assert pushed == 1.0 and proc.poll() is None
        reader.next_where(lambda d: d["event"] == "progress" and d["run_id"] == "long/0", "progress of the long run")
        # Prometheus scrapes the endpoint while the long transfer runs: its rate, the first run's result,
        # the threshold checked when the first test ended, the monitor's figures.
        for promql in ('gftpwb_transfer_rate_bytes_per_second{test="long",scenario="live",host="local"} > 0',
                       'gftpwb_runs_total{test="short",status="passed"} == 1',
                       'gftpwb_threshold_violated{test="short",metric="median_rate"} == 0',
                       'gftpwb_monitor_cpu_busy_ratio{monitor="load",host="local"} >= 0'):
            eventually(lambda promql=promql: query(scraper, promql), f"Prometheus to have {promql}",
                       timeout=START_TIMEOUT_S, step=0.2)
        live = scraper.get("/api/v1/targets")
        assert '"health":"up"' in live
        promtool_check(http_get(f"http://127.0.0.1:{port}/metrics")[1])  # what gftpwb serves, mid-run
        assert proc.poll() is None
        before_the_end = list(reader.lines)  # read while the run was still going: it only ends on the SIGINT below
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=120) == 130
        reader.thread.join(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    stderr.seek(0)
    err = stderr.read()
    stderr.close()
    assert "Traceback" not in err, err
    # The stream: every line valid as it arrived, from the first to the last.
    assert not reader.problems, reader.problems
    names = [d["event"] for d in reader.lines]
    assert names[0] == "stream-started" and names[-1] == "scenario-finished"
    assert {"scenario-started", "run-started", "progress", "monitor-sample", "thresholds", "sampler-started",
            "run-finished"} <= set(names)
    early = {d["event"] for d in before_the_end}
    assert {"run-started", "progress", "run-finished", "thresholds", "monitor-sample"} <= early
    assert all(d["_running"] for d in before_the_end)
    assert reader.lines[-1]["interrupted"] and reader.lines[-1]["counts"] == {"passed": 1, "interrupted": 1}
    journal = [json.loads(line) for line in (results / "results.jsonl").read_text().splitlines()]
    assert [d["record"] for d in reader.events("run-finished")] == journal
    # Prometheus answers for the series afterwards (the target is gone: over a range).
    moved = query(scraper, 'max_over_time(gftpwb_transferred_bytes_total{test="long"}[1h])')
    assert moved and float(moved[0]["value"][1]) > 0
    series = json.loads(scraper.get('/api/v1/series?match[]=gftpwb_runs_total'))["data"]
    assert {(s["test"], s["status"]) for s in series} >= {("short", "passed")}
        # The last push: the interrupted run too; the same figures a report of the directory writes.
    final = samples(gateway.get("/metrics"))
    assert find(final, "gftpwb_runs_total", test="long", status="interrupted") == 1.0
    textfiles = tmp_path / "textfiles"
    textfiles.mkdir()
    out = gftpwb("report", str(results), "--openmetrics", str(textfiles / "gftpwb.prom"))
    assert out.returncode == 0, out.stderr
    text = (textfiles / "gftpwb.prom").read_text()
    promtool_check(text)
    report = samples(text)
    for name in ("gftpwb_runs_total", "gftpwb_guc_rate_incl_setup_bytes_per_second", "gftpwb_threshold_violated",
                 "gftpwb_case_info", "gftpwb_last_run_passed", "gftpwb_scenario_runs_planned"):
        assert {k: v for k, v in report.items() if k[0] == name} == {k: v for k, v in final.items() if k[0] == name}
    # node_exporter's textfile collector reads the file as it is.
    exporter = node_exporter(tmp_path, textfiles)
    try:
        exposed = samples(exporter.get("/metrics"))
    finally:
        exporter.stop()
    assert find(exposed, "node_textfile_scrape_error") == 0.0
    assert find(exposed, "gftpwb_runs_total", test="short", status="passed") == 1.0


def test_a_real_libgfapi_run_streams_per_thread_events(tmp_path, gluster):
    path = tmp_path / "gf.yaml"
    path.write_text(textwrap.dedent(f"""\
        version: 1
        name: gf
        tests:
          - id: write
            kind: gfapi
            volume: {{name: {gluster.volume}, server: {gluster.address}}}
            directory: /gftpwb-live-{uuid.uuid4().hex[:8]}
            workload: seq-wr
            processes: 1
            threads: 2
            files: 400
            file_size: 64K
            record_size: 64K
            timeout: 2m
        """))
    with open(tmp_path / "stderr.txt", "w+") as stderr:
        proc = subprocess.Popen([*GFTPWB, "run", str(path), "--results", str(tmp_path / "r"), "--progress", "never",
                                 "--events", "jsonl"], stdout=subprocess.PIPE, stderr=stderr, text=True)
        reader = StreamReader(proc)
        proc.wait(timeout=300)
        reader.thread.join(timeout=60)
        stderr.seek(0)
        err = stderr.read()
    assert proc.returncode == 0, err
    assert not reader.problems, reader.problems
    threads = reader.events("thread")
    assert {t["thread"] for t in threads} == {0, 1}
    assert {t["state"] for t in threads} >= {"running", "done"}
    done = [t for t in threads if t["state"] == "done"]
    assert len(done) == 2 and all(t["files"] == 400 for t in done)  # files: per thread
    (finished,) = reader.events("run-finished")
    assert finished["record"]["details"]["gfapi"]["cluster"]["files"] == 800
    assert "gfapi results" in err  # the console, on stderr, has the report
