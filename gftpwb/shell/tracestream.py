"""The sending end of a live trace stream (``gftpwb run --trace-to HOST:PORT``): a TCP connection to
``gftpwb trace collect``, made before the first run (a collector that cannot be reached stops the run
before it starts), fed by the trace sink as records are made. Sends are small and happen on the event
loop; a collector that goes away mid-run ends the stream, not the run (a warning says so), and the
results directory keeps its own trace.jsonl either way."""

from __future__ import annotations

import os
import socket

from gftpwb.core.errors import EnvironmentProblem
from gftpwb.core.trace.stream import hello, parse_address

CONNECT_TIMEOUT_S = 5.0
SEND_TIMEOUT_S = 10.0


class TraceStream:
    def __init__(self, sock: socket.socket, address: str):
        self.sock: socket.socket | None = sock
        self.address = address
        self.error = ""
        self.bytes_sent = 0

    @classmethod
    def connect(cls, address: str, *, results_dir: str, scenario: str) -> TraceStream:
        try:
            host, port = parse_address(address)
        except ValueError as exc:
            raise EnvironmentProblem(f"--trace-to {exc}") from None
        try:
            sock = socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S)
        except OSError as exc:
            raise EnvironmentProblem(f"--trace-to {address}: cannot reach the trace collector "
                                     f"({exc.strerror or exc}); start one with gftpwb trace collect --listen "
                                     f"{host}:{port}") from None
        sock.settimeout(SEND_TIMEOUT_S)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        stream = cls(sock, f"{host}:{port}")
        stream.send(hello(socket.gethostname(), os.path.basename(os.path.normpath(results_dir)), scenario))
        return stream

    def send(self, data: bytes) -> None:
        if self.sock is None:
            return
        try:
            self.sock.sendall(data)
            self.bytes_sent += len(data)
        except OSError as exc:
            self.error = f"the trace collector at {self.address} went away ({exc.strerror or exc}); the trace " \
                         "goes on in the results directory only"
            self.close()

    def close(self) -> None:
        if self.sock is not None:
            try:
                self.sock.close()
            finally:
                self.sock = None
