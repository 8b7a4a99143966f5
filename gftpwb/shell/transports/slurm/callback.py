"""The controller's end of the tasks' connections (:mod:`gftpwb.core.slurm.wire`): one TCP listener
per scenario run; each connection says which step, task and channel it is (and the run's secret)
and is handed to that task. Anything else is closed at once."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import secrets
import socket
from collections.abc import Callable
from typing import Protocol

from gftpwb.core.slurm.wire import MAX_HELLO, Hello, parse_hello

HELLO_TIMEOUT_S = 30.0
KEEPALIVE = (5, 5, 3)  # idle, interval, count: a node that vanishes is noticed within ~20 s


class Receiver(Protocol):
    def attach(self, hello: Hello, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool: ...


def keepalive(writer: asyncio.StreamWriter) -> None:
    sock = writer.get_extra_info("socket")
    if sock is None:
        return
    with contextlib.suppress(OSError, AttributeError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        idle, interval, count = KEEPALIVE
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE, idle)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPINTVL, interval)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPCNT, count)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def _any_address_socket() -> socket.socket:
    try:
        sock = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        sock.bind(("::", 0))
    except OSError:  # no IPv6 here
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("0.0.0.0", 0))
    sock.setblocking(False)
    return sock


class Callback:
    """Accepts the tasks' connections and routes them by step (``lookup``)."""

    def __init__(self, lookup: Callable[[str], Receiver | None], bind: str = ""):
        self.secret = secrets.token_hex(16)
        self.lookup = lookup
        self.bind = bind
        self.port = 0
        self._server: asyncio.Server | None = None
        self._pending: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        """Listen on one port: the given address, else every address (one dual-stack socket, so IPv4
        and IPv6 tasks reach the same port)."""
        if self.bind:
            self._server = await asyncio.start_server(self._accept, host=self.bind, port=0, backlog=4096,
                                                      limit=1 << 20)
        else:
            self._server = await asyncio.start_server(self._accept, sock=_any_address_socket(), backlog=4096,
                                                      limit=1 << 20)
        self.port = self._server.sockets[0].getsockname()[1]

    def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.create_task(self._hello(reader, writer))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _hello(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await asyncio.wait_for(reader.readuntil(b"\n"), HELLO_TIMEOUT_S)
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, OSError):
            writer.close()
            return
        hello = parse_hello(line[:MAX_HELLO])
        receiver = self.lookup(hello.step) if hello is not None else None
        if hello is None or receiver is None or not hmac.compare_digest(hello.secret, self.secret):
            writer.close()
            return
        keepalive(writer)
        if not receiver.attach(hello, reader, writer):
            writer.close()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):  # 3.12 waits for open connections too: not for long
                await asyncio.wait_for(self._server.wait_closed(), 1.0)
        for task in list(self._pending):
            task.cancel()
