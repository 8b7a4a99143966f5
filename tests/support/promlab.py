"""Debian's Prometheus servers for the tests, each started by the test in its own temporary
directory on its own free port (so sessions can run these tests at once), and stopped again:
``prometheus`` scraping given targets every second, ``prometheus-pushgateway`` (no persistence file)
and ``prometheus-node-exporter`` with only its textfile collector."""

from __future__ import annotations

import json
import subprocess
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from gftpwb.shell.lab.gridftp import free_port

from .polling import eventually

START_TIMEOUT_S = 120.0  # a loaded machine: wait for readiness, never for a fixed time


def http_get(url: str, timeout: float = 10.0) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:
            return answer.status, answer.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8", "replace")


class Daemon:
    """One server process; its log in its directory; :meth:`stop` ends it (and only it)."""

    def __init__(self, name: str, argv: list[str], directory: Path, port: int, ready_path: str):
        self.name = name
        self.directory = directory
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.log = directory / f"{name}.log"
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, cwd=directory)
        try:
            eventually(lambda: self._ready(ready_path), f"{name} on port {port} (log: {self.log})",
                       timeout=START_TIMEOUT_S, step=0.2)
        except BaseException:
            self.stop()
            raise

    def _ready(self, path: str) -> bool:
        if self.process.poll() is not None:
            raise AssertionError(f"{self.name} exited with {self.process.returncode}:\n{self.log.read_text()[-3000:]}")
        try:
            return http_get(self.url + path, timeout=2)[0] == 200
        except OSError:
            return False

    def get(self, path: str) -> str:
        status, body = http_get(self.url + path)
        assert status == 200, (status, body)
        return body

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def prometheus(directory: Path, targets: list[str]) -> Daemon:
    port = free_port()
    config = directory / "prometheus.yml"
    config.write_text(json.dumps({  # JSON is YAML
        "global": {"scrape_interval": "1s", "scrape_timeout": "1s", "evaluation_interval": "1s"},
        "scrape_configs": [{"job_name": "gftpwb", "static_configs": [{"targets": targets}]}]}))
    return Daemon("prometheus", ["prometheus", f"--config.file={config}", f"--storage.tsdb.path={directory / 'data'}",
                                 f"--web.listen-address=127.0.0.1:{port}", "--log.level=warn"],
                  directory, port, "/-/ready")


def query(server: Daemon, promql: str, **params: str) -> list[dict]:
    """The result of an instant query through Prometheus' HTTP API."""
    body = json.loads(server.get("/api/v1/query?" + urllib.parse.urlencode({"query": promql, **params})))
    assert body["status"] == "success", body
    return body["data"]["result"]


def pushgateway(directory: Path) -> Daemon:
    port = free_port()
    return Daemon("pushgateway", ["prometheus-pushgateway", f"--web.listen-address=127.0.0.1:{port}",
                                  "--persistence.file=", "--log.level=warn"], directory, port, "/-/ready")


def node_exporter(directory: Path, textfiles: Path) -> Daemon:
    port = free_port()
    return Daemon("node-exporter", ["prometheus-node-exporter", "--collector.disable-defaults", "--collector.textfile",
                                    f"--collector.textfile.directory={textfiles}",
                                    f"--web.listen-address=127.0.0.1:{port}", "--log.level=warn"],
                  directory, port, "/metrics")
