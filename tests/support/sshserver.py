"""An in-process asyncssh server for fast SSH tests: it runs each command with ``/bin/sh -c`` on this
machine, as sshd would, so the transport's wrapper, streaming, kills, stdin and SFTP uploads are all
exercised for real; only sshd itself is replaced. Every process it starts carries a marker in its
environment, so a test can look for survivors and the fixture can clean up."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import uuid
from dataclasses import dataclass, field

import asyncssh

from gftpwb.core.scenario.model import Host


@dataclass
class FakeSshd:
    port: int
    host_key: asyncssh.SSHKey
    client_key_path: str
    known_hosts_path: str
    token: str
    server: asyncssh.SSHAcceptor | None = None
    connections: list[asyncssh.SSHServerConnection] = field(default_factory=list)
    accepted: int = 0
    handlers: set[asyncio.Task] = field(default_factory=set)

    def host(self, name: str = "h1", **overrides: object) -> Host:
        values: dict[str, object] = {"name": name, "address": "127.0.0.1", "port": self.port, "user": "bench",
                                     "identity": self.client_key_path, "known_hosts": self.known_hosts_path,
                                     "connect_timeout_s": 5.0}
        values.update(overrides)
        return Host(**values)  # type: ignore[arg-type]

    def drop_connections(self) -> None:
        """Cut every client connection at once, as a dying sshd or a broken link would."""
        for conn in list(self.connections):
            conn.abort()

    def survivors(self) -> list[int]:
        """Pids of processes still running that this server started (zombies excluded)."""
        return processes_with_env(f"GFTPWB_FAKE_SSHD={self.token}")


def processes_with_env(entry: str) -> list[int]:
    found = []
    needle = entry.encode()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as handle:
                if needle not in handle.read().split(b"\0"):
                    continue
            with open(f"/proc/{name}/stat") as handle:
                if handle.read().rsplit(")", 1)[1].split()[0] == "Z":
                    continue
        except OSError:
            continue
        found.append(int(name))
    return found


def kill_survivors(entry: str) -> None:
    for pid in processes_with_env(entry):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


async def start_fake_sshd(directory: str, host_key: asyncssh.SSHKey, client_key: asyncssh.SSHKey) -> FakeSshd:
    token = uuid.uuid4().hex
    client_key_path = os.path.join(directory, "id_client")
    client_key.write_private_key(client_key_path)
    os.chmod(client_key_path, 0o600)
    authorized = asyncssh.import_authorized_keys(client_key.export_public_key().decode())
    state = FakeSshd(port=0, host_key=host_key, client_key_path=client_key_path,
                     known_hosts_path=os.path.join(directory, "known_hosts"), token=token)

    async def handle(process: asyncssh.SSHServerProcess) -> None:
        task = asyncio.current_task()
        if task is not None:
            state.handlers.add(task)
        env = {**os.environ, "GFTPWB_FAKE_SSHD": token}
        local = await asyncio.create_subprocess_shell(
            process.command or "true", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=env, start_new_session=True)

        async def pump_out(reader: asyncio.StreamReader, writer: asyncssh.SSHWriter) -> None:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()

        async def pump_in() -> None:
            assert local.stdin is not None
            try:
                while data := await process.stdin.read(65536):
                    local.stdin.write(data)
                    await local.stdin.drain()
            finally:
                local.stdin.close()

        feeder = asyncio.create_task(pump_in())
        try:
            await asyncio.gather(pump_out(local.stdout, process.stdout), pump_out(local.stderr, process.stderr))
            process.exit(await local.wait())
        except (asyncssh.Error, OSError):
            pass  # the client went away; like sshd, leave the command to its own fate (the watchdog)
        finally:
            feeder.cancel()

    class Server(asyncssh.SSHServer):
        def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
            state.connections.append(conn)
            state.accepted += 1

        def connection_lost(self, exc: Exception | None) -> None:
            return None

        def connection_requested(self, dest_host: str, dest_port: int, orig_host: str, orig_port: int) -> bool:
            return True  # direct-tcpip forwarding, as sshd allows by default: jump hosts go through it

    state.server = await asyncssh.listen(
        "127.0.0.1", 0, server_host_keys=[host_key], authorized_client_keys=authorized, process_factory=handle,
        server_factory=Server, sftp_factory=True, allow_scp=False, encoding=None)
    state.port = state.server.sockets[0].getsockname()[1]
    with open(state.known_hosts_path, "w") as handle:
        handle.write(f"[127.0.0.1]:{state.port} {host_key.export_public_key().decode().strip()}\n")
    return state


async def stop_fake_sshd(state: FakeSshd) -> None:
    state.drop_connections()
    if state.server is not None:
        state.server.close()
        await state.server.wait_closed()
    kill_survivors(f"GFTPWB_FAKE_SSHD={state.token}")
    pending = [t for t in state.handlers if not t.done()]
    if pending:  # let them reap their subprocesses while the loop still runs
        await asyncio.wait(pending, timeout=5)
