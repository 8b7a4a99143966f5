"""The event bus: a synchronous publish/subscribe hub between the executor and its sinks.

Synchronous on purpose: the journal must have written and fsync'd a record before the executor
starts the next run, and every subscriber sees events in the same order. Subscribers that need to
do slow work (the TUI) keep a cheap handler that updates state and render on their own timer.
"""

from __future__ import annotations

from collections.abc import Callable

from .events import Event

Handler = Callable[[Event], None]


class EventBus:
    def __init__(self) -> None:
        self._handlers: list[Handler] = []

    def subscribe(self, handler: Handler) -> Callable[[], None]:
        """Add ``handler``; returns a function that removes it again."""
        self._handlers.append(handler)
        return lambda: self._handlers.remove(handler) if handler in self._handlers else None

    def publish(self, event: Event) -> None:
        for handler in list(self._handlers):
            handler(event)
