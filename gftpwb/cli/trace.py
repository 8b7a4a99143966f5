"""Handlers of ``gftpwb trace export`` and ``gftpwb trace summary``: read a results directory's trace
(``trace.jsonl`` and the binary I/O files it indexes), hand it to the pure exporters and summary
(:mod:`gftpwb.core.trace`), write or print the result."""

from __future__ import annotations

import argparse
import json
import os
import sys

from gftpwb.core.errors import EXIT_OK, UsageError
from gftpwb.core.trace.export import bp_lines, perfetto
from gftpwb.core.trace.reader import Trace, load_trace
from gftpwb.core.trace.records import TRACE_NAME
from gftpwb.core.trace.summary import summary_lines
from gftpwb.shell.files import atomic_write

DEFAULT_OUTPUT = {"bp": "trace.bp", "perfetto": "trace.perfetto.json"}


def read_trace(directory: str) -> Trace:
    """The trace of a results directory; UsageError when it has none (not a traced run)."""
    if not os.path.isdir(directory):
        raise UsageError(f"{directory}: no such results directory")
    path = os.path.join(directory, TRACE_NAME)
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except FileNotFoundError:
        raise UsageError(f"{directory}: no {TRACE_NAME}: its runs were not traced (trace: run or io in the scenario, "
                         "or gftpwb run --trace run)") from None
    except OSError as exc:
        raise UsageError(f"{path}: {exc.strerror or exc}") from None

    base = os.path.realpath(directory)

    def read_binary(relative: str) -> bytes:
        full = os.path.realpath(os.path.join(base, relative))
        if os.path.commonpath([full, base]) != base:  # trace.jsonl names only files of its own directory
            raise OSError(f"{relative} is outside the results directory")
        with open(full, "rb") as handle:
            return handle.read()

    return load_trace(text, read_binary)


def cmd_export(args: argparse.Namespace) -> int:
    trace = read_trace(args.directory)
    if args.format == "bp":
        text = "".join(line + "\n" for line in bp_lines(trace))
    else:
        text = json.dumps(perfetto(trace), separators=(",", ":")) + "\n"
    for problem in trace.problems:
        print(f"warning: {problem}", file=sys.stderr)
    output = args.output or os.path.join(args.directory, DEFAULT_OUTPUT[args.format])
    if output == "-":
        sys.stdout.write(text)
        return EXIT_OK
    try:
        atomic_write(output, text)
    except OSError as exc:
        raise UsageError(f"{output}: cannot write: {exc.strerror or exc}") from None
    print(f"{output}: {len(text.splitlines()) if args.format == 'bp' else len(trace.records) + len(trace.io)} "
          f"event(s) in {args.format} format", file=sys.stderr)
    return EXIT_OK


def cmd_summary(args: argparse.Namespace) -> int:
    if args.top < 1:
        raise UsageError(f"--top {args.top}: give a number of 1 or more")
    trace = read_trace(args.directory)
    print("\n".join(summary_lines(trace, args.top)))
    return EXIT_OK


def cmd_collect(args: argparse.Namespace) -> int:
    """Receive live trace streams (``gftpwb run --trace-to``) and store each as a results directory's
    trace: ``OUT/<sender host>/<results directory>/trace.jsonl`` and ``trace/...``, which ``gftpwb trace
    export`` and ``summary`` read like any results directory."""
    import asyncio

    from gftpwb.core.errors import EnvironmentProblem
    from gftpwb.core.trace.stream import parse_address

    try:
        host, port = parse_address(args.listen, default_host="0.0.0.0")
    except ValueError as exc:
        raise UsageError(f"--listen {exc}") from None
    try:
        return asyncio.run(_serve(host, port, args.out, args.once))
    except OSError as exc:
        raise EnvironmentProblem(f"--listen {host}:{port}: {exc.strerror or exc}") from None


async def _serve(host: str, port: int, out: str, once: bool) -> int:
    import asyncio
    import signal

    done = asyncio.Event()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = "{}:{}".format(*writer.get_extra_info("peername")[:2])
        try:
            await _receive(reader, peer, out)
        finally:
            writer.close()
            if once:
                done.set()

    server = await asyncio.start_server(handle, host, port)
    bound = server.sockets[0].getsockname()
    print(f"gftpwb trace collect: listening on {bound[0]}:{bound[1]}, storing under {out}/", flush=True)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, done.set)
    async with server:
        await done.wait()
    return EXIT_OK


async def _receive(reader, peer: str, out: str) -> None:
    from gftpwb.core.trace.stream import Blob, Hello, Record, StreamError, StreamReader, line, safe_component
    from gftpwb.shell.files import atomic_write_bytes

    stream = StreamReader()
    target = ""
    jsonl = None
    counts = {"records": 0, "files": 0}
    try:
        while data := await reader.read(1 << 16):
            for message in stream.feed(data):
                if isinstance(message, Hello):
                    target = os.path.join(out, safe_component(message.source), safe_component(message.results))
                    os.makedirs(target, exist_ok=True)
                    jsonl = open(os.path.join(target, TRACE_NAME), "ab")  # noqa: SIM115 (closed below)
                    print(f"{peer}: {message.scenario} from {message.source} -> {target}", flush=True)
                elif isinstance(message, Record) and jsonl is not None:
                    jsonl.write(line(message.record))
                    jsonl.flush()
                    counts["records"] += 1
                elif isinstance(message, Blob):
                    path = os.path.join(target, *message.path.split("/"))
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                    atomic_write_bytes(path, message.data)
                    counts["files"] += 1
        if stream.pending:
            print(f"{peer}: the stream ended in the middle of a frame (sender gone)", file=sys.stderr, flush=True)
    except (StreamError, OSError) as exc:
        print(f"{peer}: {exc}", file=sys.stderr, flush=True)
    finally:
        if jsonl is not None:
            jsonl.close()
        print(f"{peer}: {counts['records']} record(s), {counts['files']} I/O file(s)", flush=True)
