"""The SSH transport (asyncssh): runs argv lists on the hosts of a scenario's inventory.

* **Connections.** :class:`SshPool` keeps one connection per host and reuses it for every process,
  upload and probe; a host that needs more than ``channels_per_connection`` channels at once (OpenSSH
  allows 10 sessions per connection) gets another connection. A global semaphore limits simultaneous
  handshakes (sshd's MaxStartups drops unauthenticated connections beyond 10 at once). A closed or
  lost connection is dropped, so the next run on a recovered host connects again.
* **Host keys** are verified against the host's known_hosts file (default ~/.ssh/known_hosts). With
  ``accept_new_host_keys`` a host that has no entry there is trusted on first use: its key is appended
  to that file and the fact is reported through ``notify``. A key that differs from a listed one is
  always refused. ``~/.ssh/config`` is not read: the inventory says everything.
* **Processes** run under the wrapper of :mod:`gftpwb.shell.transports.remote`, which reports the remote process
  group; :meth:`SshProcess.stop` kills that group over a second channel, and the wrapper's watchdog
  kills it if the connection goes away. Output is streamed as it arrives, in chunks, like the local
  transport (guc's progress ends in ``\\r``, so no line reading).
* **Uploads** go through SFTP to a temporary name, then a rename; an identical file is not copied.

Failures to reach a host raise :class:`SshError` (a :class:`StartError`) whose ``status`` says what
failed (unreachable, host-key, auth-failed, error) and whose text names the host; a connection lost
while a process runs raises :class:`ProcessLost` from ``output()`` / ``wait()``.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import getpass
import ipaddress
import os
import pwd
import shlex
import socket
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field

import asyncssh

from gftpwb.core.clockoffset import ClockOffset, ClockSample, estimate_offset, parse_remote_time
from gftpwb.core.hostcheck import AUTH, ERROR, HOST_KEY, UNREACHABLE
from gftpwb.core.scenario.model import Host
from gftpwb.core.transport import ProcessLost, StartError

from .local import CHUNK, file_sha256
from .pumps import Put, merged_output
from .remote import kill_command, parse_marker, wrapped_command

# Answers each line on stdin with the host's wall clock; bash's $EPOCHREALTIME needs no fork, so the
# reading is taken right after the request arrives; ``date`` is the fallback. ``--norc``: bash run
# under sshd would otherwise source ~/.bashrc (slow, and not ours to run).
CLOCK_SERVER = ('if command -v bash >/dev/null 2>&1 && [ -n "$(bash --norc -c \'echo $EPOCHREALTIME\')" ]; then '
                'exec bash --norc -c \'while read -r _; do echo "$EPOCHREALTIME"; done\'; fi; '
                'while read -r _; do date +%s.%N; done')
CLOCK_SAMPLES = 8


def local_user_name() -> str:
    """The login name to use when a host names no ``user``: the local user's, as OpenSSH does."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return pwd.getpwuid(os.getuid()).pw_name


class SshError(StartError):
    """A host could not be reached, verified or logged into; ``status`` classifies why."""

    def __init__(self, message: str, status: str = ERROR):
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class SshLimits:
    channels_per_connection: int = 8  # OpenSSH MaxSessions is 10; one is kept for kills and probes
    handshakes: int = 8  # simultaneous handshakes in flight, all hosts together (MaxStartups 10)
    keepalive_interval_s: float = 5.0  # notice a silently dead link within ~3 intervals
    keepalive_count_max: int = 3
    marker_timeout_s: float = 60.0  # a started command must report its process group by then


def default_known_hosts() -> str:
    return os.path.join(os.path.expanduser("~"), ".ssh", "known_hosts")


def _is_ip(address: str) -> bool:
    try:
        ipaddress.ip_address(address)
    except ValueError:
        return False
    return True


def known_hosts_pattern(address: str, port: int) -> str:
    """The host pattern OpenSSH writes: ``addr`` for port 22, ``[addr]:port`` otherwise."""
    return address if port == 22 else f"[{address}]:{port}"


def describe_connect_error(host: Host, exc: BaseException, timeout_s: float) -> SshError:
    """One clear sentence for why ``host`` could not be used, naming the host and its address."""
    where = host.label
    if isinstance(exc, asyncssh.HostKeyNotVerifiable):
        return SshError(f"{where}: host key not verifiable: {exc.reason}", HOST_KEY)
    if isinstance(exc, asyncssh.PermissionDenied):
        user = host.user or "the current user"
        key = f"identity {host.identity}" if host.identity else "the default keys and agent"
        return SshError(f"{where}: login refused for {user} with {key} ({exc.reason})", AUTH)
    if isinstance(exc, TimeoutError | asyncio.TimeoutError):
        return SshError(f"{where}: no answer within {timeout_s:g}s (host down or unreachable)", UNREACHABLE)
    if isinstance(exc, socket.gaierror):
        return SshError(f"{where}: cannot resolve {host.address}: {exc.strerror}", UNREACHABLE)
    if isinstance(exc, ConnectionRefusedError):
        return SshError(f"{where}: connection refused (no sshd listening?)", UNREACHABLE)
    if isinstance(exc, OSError) and exc.errno in (errno.EHOSTUNREACH, errno.ENETUNREACH, errno.ETIMEDOUT,
                                                  errno.EHOSTDOWN, errno.ECONNRESET):
        return SshError(f"{where}: {os.strerror(exc.errno)}", UNREACHABLE)  # asyncio's text names no reason
    if isinstance(exc, OSError) and exc.errno is not None and not isinstance(exc, PermissionError | FileNotFoundError):
        return SshError(f"{where}: {os.strerror(exc.errno)}", UNREACHABLE)
    if isinstance(exc, asyncssh.ConnectionLost | asyncssh.DisconnectError | BrokenPipeError):
        reason = getattr(exc, "reason", "") or str(exc) or type(exc).__name__
        return SshError(f"{where}: connection closed during login: {reason}", UNREACHABLE)
    if isinstance(exc, asyncssh.KeyImportError | FileNotFoundError | PermissionError):
        return SshError(f"{where}: cannot use identity file {host.identity or '(default)'}: {exc}", ERROR)
    return SshError(f"{where}: {type(exc).__name__}: {exc}", ERROR)


@dataclass
class _Connection:
    conn: asyncssh.SSHClientConnection
    channels: int = 0
    jump_lease: _Lease | None = None

    @property
    def usable(self) -> bool:
        return not self.conn.is_closed()


@dataclass
class _Lease:
    """A channel slot on one connection; ``release()`` gives it back (idempotent)."""

    pool: SshPool
    host: str
    entry: _Connection
    released: bool = False

    @property
    def conn(self) -> asyncssh.SSHClientConnection:
        return self.entry.conn

    def release(self) -> None:
        if not self.released:
            self.released = True
            self.entry.channels -= 1


@dataclass
class _HostState:
    host: Host
    connections: list[_Connection] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    failures: int = 0
    last_error: SshError | None = None


class SshPool:
    """Connections to the hosts of one inventory, shared by every transport, upload and probe."""

    def __init__(self, hosts: Sequence[Host] | Mapping[str, Host], *, accept_new_host_keys: bool = False,
                 limits: SshLimits | None = None, notify: Callable[[str], None] | None = None,
                 ssh_config: Sequence[str] = ()):
        items = hosts.values() if isinstance(hosts, Mapping) else hosts
        self.hosts = {h.name: h for h in items}
        self.accept_new_host_keys = accept_new_host_keys
        self.limits = limits or SshLimits()
        self.notify = notify or (lambda text: None)
        self.ssh_config = list(ssh_config)  # [] = do not read ~/.ssh/config
        self._states: dict[str, _HostState] = {}
        self._handshakes: asyncio.Semaphore | None = None
        self._key_locks: dict[str, asyncio.Lock] = {}
        self._live: set[SshProcess] = set()
        self._transports: dict[str, SshTransport] = {}

    def transport(self, name: str) -> SshTransport:
        if name not in self.hosts:
            raise KeyError(f"host {name!r} is not in the inventory")
        if name not in self._transports:
            self._transports[name] = SshTransport(self, name)
        return self._transports[name]

    def _state(self, name: str) -> _HostState:
        if name not in self._states:
            self._states[name] = _HostState(self.hosts[name])
        return self._states[name]

    async def acquire(self, name: str) -> _Lease:
        """A channel slot on a live connection to ``name``, connecting when none has room.

        Callers that queued behind a connection attempt that failed get that failure at once
        instead of trying again; the next caller after it tries afresh (the host may be back)."""
        state = self._state(name)
        failures_seen = state.failures
        async with state.lock:
            kept = []
            for entry in state.connections:
                if entry.usable or entry.channels > 0:
                    kept.append(entry)
                elif entry.jump_lease is not None:
                    entry.jump_lease.release()  # the tunnel's channel on the jump host is free again
            state.connections = kept
            for entry in state.connections:
                if entry.usable and entry.channels < self.limits.channels_per_connection:
                    entry.channels += 1
                    return _Lease(self, name, entry)
            if state.failures != failures_seen and state.last_error is not None:
                raise state.last_error
            try:
                entry = await self._connect(state.host)
            except SshError as exc:
                state.failures += 1
                state.last_error = exc
                raise
            state.connections.append(entry)
            entry.channels += 1
            return _Lease(self, name, entry)

    async def _connect(self, host: Host) -> _Connection:
        if self._handshakes is None:
            self._handshakes = asyncio.Semaphore(self.limits.handshakes)
        jump_lease = None
        if host.jump:
            try:
                jump_lease = await self.acquire(host.jump)
            except SshError as exc:
                raise SshError(f"{host.label}: cannot reach its jump host: {exc}", exc.status) from None
        tunnel = jump_lease.conn if jump_lease else None
        try:
            known = await self._known_hosts(host, tunnel)
            options = asyncssh.SSHClientConnectionOptions(
                username=host.user or local_user_name(),
                port=host.port,
                known_hosts=known,
                client_keys=[os.path.expanduser(host.identity)] if host.identity else (),
                connect_timeout=host.connect_timeout_s,
                login_timeout=host.connect_timeout_s,
                keepalive_interval=self.limits.keepalive_interval_s,
                keepalive_count_max=self.limits.keepalive_count_max,
                config=self.ssh_config,
            )
            async with self._handshakes:
                conn = await asyncio.wait_for(
                    asyncssh.connect(host.address, tunnel=tunnel or (), options=options),
                    host.connect_timeout_s + 5)
        except SshError:
            if jump_lease:
                jump_lease.release()
            raise
        except (OSError, asyncssh.Error, TimeoutError, ValueError) as exc:
            if jump_lease:
                jump_lease.release()
            error = describe_connect_error(host, exc, host.connect_timeout_s)
            if error.status == HOST_KEY:
                error = SshError(self._host_key_message(host, exc), HOST_KEY)
            raise error from None
        return _Connection(conn, jump_lease=jump_lease)

    def _known_hosts_path(self, host: Host) -> str:
        return os.path.expanduser(host.known_hosts) if host.known_hosts else default_known_hosts()

    def _listed_keys(self, host: Host, which: int = 0) -> list[asyncssh.SSHKey]:
        """The keys known_hosts trusts for ``host`` (``which`` 2: the keys it marks ``@revoked``)."""
        path = self._known_hosts_path(host)
        if not os.path.exists(path):
            return []
        known = asyncssh.read_known_hosts(path)
        addr = host.address if _is_ip(host.address) else ""
        with contextlib.suppress(ValueError):
            return list(known.match(host.address, addr, host.port)[which])
        return []

    def _revoked_message(self, host: Host) -> str:
        return (f"{host.label}: REVOKED HOST KEY: the key the host presented is marked @revoked in "
                f"{self._known_hosts_path(host)}; refusing to connect (not even --accept-new-host-keys trusts a "
                "revoked key)")

    async def _known_hosts(self, host: Host, tunnel: asyncssh.SSHClientConnection | None) -> object:
        """What asyncssh verifies against: the known_hosts file (never None). With trust on first use,
        a host that has no key listed there gets its key fetched and appended first."""
        path = self._known_hosts_path(host)
        if self.accept_new_host_keys:
            lock = self._key_locks.setdefault(path, asyncio.Lock())
            async with lock:
                if not self._listed_keys(host):
                    await self._trust_on_first_use(host, path, tunnel)
        if not os.path.exists(path):
            # Nothing is trusted: an empty list makes asyncssh refuse every key, with a clear message.
            return asyncssh.import_known_hosts("")
        return path

    async def _trust_on_first_use(self, host: Host, path: str, tunnel: asyncssh.SSHClientConnection | None) -> None:
        assert self._handshakes is not None
        async with self._handshakes:
            key = await asyncio.wait_for(
                asyncssh.get_server_host_key(host.address, host.port, tunnel=tunnel or (), config=self.ssh_config),
                host.connect_timeout_s + 5)
        if key is None:
            raise SshError(f"{host.label}: the server sent no host key", HOST_KEY)
        if any(key == revoked for revoked in self._listed_keys(host, 2)):  # a @revoked line wins over TOFU
            raise SshError(self._revoked_message(host), HOST_KEY)
        line = f"{known_hosts_pattern(host.address, host.port)} {key.export_public_key('openssh').decode().strip()}\n"
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "a", encoding="ascii") as handle:
            handle.write(line)
        self.notify(f"accepted new host key of {host.label}: {key.get_algorithm()} "
                    f"{key.get_fingerprint('sha256')}, added to {path} (--accept-new-host-keys)")

    def _host_key_message(self, host: Host, exc: BaseException) -> str:
        path = self._known_hosts_path(host)
        if "revoked" in str(exc).lower():
            return self._revoked_message(host)
        if self._listed_keys(host):
            return (f"{host.label}: HOST KEY MISMATCH: the key the host presented is not the one {path} lists "
                    f"for it; refusing to connect (someone may be intercepting the connection, or the host was "
                    f"reinstalled: then remove its line from {path})")
        hint = "" if self.accept_new_host_keys else "; run with --accept-new-host-keys to trust it on first use"
        return f"{host.label}: host key not verifiable: {host.address} is not listed in {path}{hint}"

    def track(self, process: SshProcess) -> None:
        self._live.add(process)

    def untrack(self, process: SshProcess) -> None:
        self._live.discard(process)

    async def close(self, grace_s: float = 1.0) -> None:
        """Stop every process still running, then close every connection."""
        await asyncio.gather(*(p.stop(grace_s) for p in list(self._live)), return_exceptions=True)
        entries = [e for s in self._states.values() for e in s.connections]
        # Tunnelled connections first, then the jump hosts they go through.
        for entry in sorted(entries, key=lambda e: e.jump_lease is None):
            entry.conn.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(entry.conn.wait_closed(), 5)
        self._states.clear()


class SshTransport:
    """The transport of one inventory host; every instance of a pool shares its connections."""

    def __init__(self, pool: SshPool, name: str):
        self.pool = pool
        self.name = name
        self.host = pool.hosts[name]
        self._prepare_error: SshError | None = None

    async def prepare(self) -> None:
        """Connect ahead of a group start so the processes of a group start together. A failure
        is kept and raised by the next ``start()`` instead of waiting for a dead host twice."""
        try:
            lease = await self.pool.acquire(self.name)
        except SshError as exc:
            self._prepare_error = exc
            return
        self._prepare_error = None
        lease.release()

    async def start(self, argv: Sequence[str], *, env: Mapping[str, str] | None = None,
                    cwd: str | None = None, stdin: bool = False) -> SshProcess:
        if self._prepare_error is not None:
            error, self._prepare_error = self._prepare_error, None
            raise error
        lease = await self.pool.acquire(self.name)
        try:
            full_env = {**dict(self.host.env), **(env or {})}
            command = wrapped_command(argv, env=full_env, cwd=cwd or self.host.workdir or None, stdin=stdin)
            # Shielded: once the exec request may have gone out, a cancel must not lose the process.
            opening = asyncio.ensure_future(lease.conn.create_process(command, encoding=None, stdin=asyncssh.PIPE))
            try:
                proc = await asyncio.shield(opening)
            except asyncio.CancelledError:
                with contextlib.suppress(Exception):
                    await asyncio.shield(SshProcess(self, lease, await opening, argv).abort_start())
                raise
            except (asyncssh.Error, OSError) as exc:
                raise SshError(f"{self.host.label}: cannot start {argv[0]}: {_reason(exc)}") from None
            process = SshProcess(self, lease, proc, argv)
            try:
                await process.read_marker()
            except asyncio.CancelledError:
                # Cancelled (Ctrl-C) while the command was starting: it may be running already.
                await asyncio.shield(process.abort_start())
                raise
        except BaseException:
            lease.release()
            raise
        self.pool.track(process)
        if not stdin:
            proc.stdin.write_eof()
        return process

    async def run(self, argv: Sequence[str], *, timeout_s: float = 30.0, input: bytes | None = None
                  ) -> tuple[int | None, bytes, bytes]:
        """Run a short command without the wrapper (probes): (exit status, stdout, stderr)."""
        return await self.run_shell(shlex.join(argv), timeout_s=timeout_s, input=input)

    async def run_shell(self, command: str, *, timeout_s: float = 30.0, input: bytes | None = None
                        ) -> tuple[int | None, bytes, bytes]:
        lease = await self.pool.acquire(self.name)
        try:
            result = await lease.conn.run(command, encoding=None, input=input, timeout=timeout_s, check=False)
        except asyncssh.TimeoutError as exc:
            raise SshError(f"{self.host.label}: command did not finish within {timeout_s:g}s") from exc
        except (asyncssh.Error, OSError) as exc:
            raise SshError(f"{self.host.label}: {_reason(exc)}", UNREACHABLE) from None
        finally:
            lease.release()
        return result.exit_status, bytes(result.stdout or b""), bytes(result.stderr or b"")

    async def open_process(self, command: str) -> tuple[asyncssh.SSHClientProcess, _Lease]:
        """A raw process on a leased channel (clock sampling); the caller releases the lease."""
        lease = await self.pool.acquire(self.name)
        try:
            proc = await lease.conn.create_process(command, encoding=None)
        except (asyncssh.Error, OSError) as exc:
            lease.release()
            raise SshError(f"{self.host.label}: {_reason(exc)}", UNREACHABLE) from None
        return proc, lease

    async def upload(self, local_path: str, remote_path: str) -> bool:
        digest = await asyncio.to_thread(file_sha256, local_path)
        if digest is None:
            raise FileNotFoundError(local_path)
        status, out, _ = await self.run(["sha256sum", "--", remote_path])
        if status == 0 and out.split(b" ", 1)[0].decode("ascii", "replace") == digest:
            return False
        mode = os.stat(local_path).st_mode & 0o7777
        tmp = f"{remote_path}.tmp-gftpwb-{os.getpid()}-{time.monotonic_ns()}"
        lease = await self.pool.acquire(self.name)
        try:
            async with lease.conn.start_sftp_client() as sftp:
                parent = os.path.dirname(remote_path)
                if parent:
                    await sftp.makedirs(parent, exist_ok=True)
                await sftp.put(local_path, tmp)
                await sftp.chmod(tmp, mode)
                try:
                    await sftp.posix_rename(tmp, remote_path)
                except asyncssh.SFTPOpUnsupported:
                    await sftp.rename(tmp, remote_path)
        except (asyncssh.Error, OSError) as exc:
            raise SshError(f"{self.host.label}: upload of {local_path} to {remote_path} failed: {_reason(exc)}") \
                from None
        finally:
            lease.release()
        return True

    async def clock_offset(self) -> ClockOffset:
        return await sample_clock(self)

    async def close(self) -> None:
        """Connections belong to the pool; ``SshPool.close()`` closes them."""
        return None


async def sample_clock(transport: SshTransport, samples: int = CLOCK_SAMPLES, timeout_s: float = 10.0) -> ClockOffset:
    """NTP-style samples over one channel; the shortest round trip wins (see clockoffset)."""
    proc, lease = await transport.open_process(CLOCK_SERVER)
    try:
        taken: list[ClockSample] = []
        async with asyncio.timeout(timeout_s):
            for _ in range(samples):
                sent = time.time()
                proc.stdin.write(b"\n")
                line = await proc.stdout.readline()
                received = time.time()
                if not line:
                    break
                taken.append(ClockSample(sent, parse_remote_time(line.decode("ascii", "replace")), received))
        return estimate_offset(taken)
    finally:
        proc.stdin.write_eof()
        proc.close()
        lease.release()


def _reason(exc: BaseException) -> str:
    return getattr(exc, "reason", "") or str(exc) or type(exc).__name__


_LOST = (asyncssh.ConnectionLost, asyncssh.DisconnectError, asyncssh.ChannelOpenError, BrokenPipeError,
         ConnectionResetError)


async def _pump(name: str, reader: asyncssh.SSHReader[bytes], put: Put) -> None:
    """One stream of a remote process; a lost connection is put as the exception, and ends it."""
    try:
        while True:
            data = await reader.read(CHUNK)
            if not data:
                break
            await put((name, data))
    except _LOST as exc:
        await put(exc)


class SshProcess:
    """A command running under the wrapper on a remote host."""

    read_pause = None  # the hint of Process.read_pause is not honoured here: every chunk is read at once

    def __init__(self, transport: SshTransport, lease: _Lease, proc: asyncssh.SSHClientProcess,
                 argv: Sequence[str]):
        self.transport = transport
        self._lease = lease
        self._proc = proc
        self._argv = list(argv)
        self.pgid: int | None = None
        self._pending_stderr = b""
        self._marker_buffer = b""  # kept across a cancelled read_marker(), so a resumed one misses nothing
        self._stopped = False

    @property
    def label(self) -> str:
        return self.transport.host.label

    async def read_marker(self) -> None:
        """Wait for the wrapper's first stderr line: the process group, or why it could not start.
        Lines before it (a chatty login shell) are kept as ordinary stderr output."""
        deadline = self.transport.pool.limits.marker_timeout_s
        try:
            async with asyncio.timeout(deadline):
                while True:
                    while b"\n" in self._marker_buffer:
                        line, self._marker_buffer = self._marker_buffer.split(b"\n", 1)
                        marker = parse_marker(line)
                        if marker is None:
                            self._pending_stderr += line + b"\n"
                            continue
                        kind, value = marker
                        if kind == "error":
                            raise SshError(f"{self.label}: {value}")
                        self.pgid = int(value)
                        self._pending_stderr += self._marker_buffer
                        self._marker_buffer = b""
                        return
                    chunk = await self._proc.stderr.read(CHUNK)
                    if not chunk:
                        break
                    self._marker_buffer += chunk
        except TimeoutError:
            self._proc.close()
            raise SshError(f"{self.label}: {self._argv[0]} did not start within {deadline:g}s") from None
        except _LOST as exc:
            raise SshError(f"{self.label}: connection lost while starting {self._argv[0]}: {_reason(exc)}",
                           UNREACHABLE) from None
        status = self._proc.exit_status
        text = (self._pending_stderr + self._marker_buffer).decode("utf-8", "replace").strip()
        raise SshError(f"{self.label}: {self._argv[0]} did not start (exit status {status}): {text[-500:]}")

    async def abort_start(self, grace: float = 0.5) -> None:
        """Stop a command whose start was cancelled: learn its process group if it is about to say
        it, then kill the group (closing the channel alone would leave it running)."""
        if self.pgid is None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.read_marker(), 5)
        await self.stop(grace)

    async def output(self) -> AsyncIterator[tuple[str, bytes]]:
        if self._pending_stderr:
            yield ("stderr", self._pending_stderr)
            self._pending_stderr = b""
        streams = {"stdout": self._proc.stdout, "stderr": self._proc.stderr}
        lost: BaseException | None = None
        async with contextlib.aclosing(merged_output(streams, _pump)) as items:
            async for item in items:
                if isinstance(item, BaseException):
                    lost = item
                else:
                    yield item
        if lost is not None or self._connection_gone():
            self._finish()
            raise ProcessLost(self._lost_message(lost))

    def _connection_gone(self) -> bool:
        return self._lease.conn.is_closed() and self._proc.exit_status is None and self._proc.exit_signal is None

    def _lost_message(self, exc: BaseException | None) -> str:
        reason = _reason(exc) if exc is not None else "the connection closed"
        return (f"{self.label}: connection lost while {self._argv[0]} ran ({reason}); the host's watchdog "
                "stops what gftpwb started there")

    async def wait(self) -> int:
        try:
            await self._proc.wait_closed()
        except _LOST as exc:
            self._finish()
            raise ProcessLost(self._lost_message(exc)) from None
        self._finish()
        status = self._proc.exit_status
        if status is None:
            signal_info = self._proc.exit_signal
            if signal_info is not None:
                return 128 + _signal_number(signal_info[0])
            if self._stopped:
                return 137
            raise ProcessLost(self._lost_message(None))
        return status

    def _finish(self) -> None:
        self._lease.release()
        self.transport.pool.untrack(self)

    async def write(self, data: bytes) -> None:
        self._proc.stdin.write(data)
        await self._proc.stdin.drain()

    async def close_stdin(self) -> None:
        with contextlib.suppress(*_LOST, OSError):
            self._proc.stdin.write_eof()

    async def stop(self, grace: float = 2.0) -> None:
        """Kill the remote process group over a second channel (TERM, ``grace`` s, KILL). If the
        connection is gone, a new one is tried once; failing that, the wrapper's watchdog does it."""
        self._stopped = True
        if self.pgid is None:
            self._proc.close()
            return
        with contextlib.suppress(SshError, asyncio.TimeoutError, TimeoutError, *_LOST, OSError):
            await asyncio.wait_for(
                self.transport.run_shell(kill_command(self.pgid, grace), timeout_s=grace + 10), grace + 15)
        # The wrapper exits once its child has: let the channel close by itself, then make sure.
        with contextlib.suppress(asyncio.TimeoutError, TimeoutError, *_LOST):
            await asyncio.wait_for(self._proc.wait_closed(), grace + 2)
        self._proc.close()


def _signal_number(name: str) -> int:
    import signal

    try:
        return int(signal.Signals[f"SIG{name}"])
    except KeyError:
        return 0
