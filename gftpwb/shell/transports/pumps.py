"""A process's two output streams read as one: each stream's pump puts what it reads on a queue, and
the reader takes the items in the order they came until every pump has ended. Local and SSH
processes read their streams differently (read pauses; a lost connection), but end alike: when the
reader stops reading (it is closed or cancelled) the pumps are cancelled and awaited, so no task
outlives the process's output."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any, TypeVar

Reader = TypeVar("Reader")
#: Puts one item on the merged output (a (stream name, bytes) pair, or what the transport adds).
Put = Callable[[Any], Awaitable[None]]


async def merged_output(readers: Mapping[str, Reader],
                        pump: Callable[[str, Reader, Put], Awaitable[None]]) -> AsyncIterator[Any]:
    """The items ``pump(name, reader, put)`` puts for each of ``readers``, in the order they came,
    until every pump has returned (or raised: its stream ends there). Close this iterator with
    ``contextlib.aclosing`` so its pumps end when the reader does."""
    queue: asyncio.Queue[Any] = asyncio.Queue()
    ended = object()

    async def run(name: str, reader: Reader) -> None:
        try:
            await pump(name, reader, queue.put)
        finally:
            queue.put_nowait(ended)  # unbounded: never waits, even while the pump is being cancelled

    tasks = [asyncio.create_task(run(name, reader)) for name, reader in readers.items()]
    open_streams = len(tasks)
    try:
        while open_streams:
            item = await queue.get()
            if item is ended:
                open_streams -= 1
            else:
                yield item
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
