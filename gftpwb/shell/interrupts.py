"""A Ctrl-C is never lost, whatever the instant it comes.

Python's own SIGINT handler raises KeyboardInterrupt wherever the main thread happens to be. Most of
the time that ends a command, but not always: raised inside a weak-reference callback or a ``__del__``
(the import system has such callbacks), it is printed as "Exception ignored" and dropped, and raised
while ``asyncio.run`` is starting it becomes a cancellation that the run may absorb. A run then went
on to its end and exited 0 after the user pressed Ctrl-C.

So a command installs :func:`install` first thing and, inside the ``try`` that catches
KeyboardInterrupt, calls :func:`raise_from_now`: the handler then still raises KeyboardInterrupt (a
Ctrl-C while loading a scenario ends the command at once), and it also *remembers* the signal (and
one Python drops is not printed as an ignored exception). Once a
run's results directory is being prepared, :func:`defer` stops the raising (nothing is left
half-written): the signal is only remembered. An event loop that runs scenarios takes the signals over
with :func:`stop_on_signals`, which first stops for every signal remembered before it, and hands them
back to this handler when it is done. A front end asks :func:`received` at its end, so a Ctrl-C that
came after the last checkpoint still ends the command as interrupted.

Only :mod:`signal` is imported: the command line installs this before anything else is loaded.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

# The signals that stop a run (the loop's handlers); only SIGINT is remembered before and after the
# loop: SIGTERM and SIGHUP keep their default action there, ending the process at once.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

_received: list[str] = []  # names of the signals remembered and not yet acted on, oldest first
_deferring = False


def _on_sigint(signum: int, frame: Any) -> None:
    _received.append(signal.Signals(signum).name)
    if not _deferring:
        raise KeyboardInterrupt


def _unraisable(hook: Callable[[Any], None]) -> Callable[[Any], None]:
    """``sys.unraisablehook`` that says nothing of a KeyboardInterrupt dropped where Python cannot
    raise it (it is remembered and acted on later), and hands everything else to ``hook``."""

    def quiet(unraisable: Any) -> None:
        if not isinstance(unraisable.exc_value, KeyboardInterrupt):
            hook(unraisable)

    return quiet


def install() -> Callable[[], None]:
    """Put the remembering handler on SIGINT (from the main thread only: elsewhere nothing changes),
    deferring at first: call :func:`raise_from_now` inside the ``try`` that catches KeyboardInterrupt,
    so that no instant is left between the two where a Ctrl-C would escape it. Returns what puts back
    the handlers that were there before, for callers of a command in-process (a second install, as
    the tgftp drop-in under ``gftpwb tgftp`` makes, changes nothing and restores nothing)."""
    import sys

    global _deferring
    if signal.getsignal(signal.SIGINT) is _on_sigint:
        return lambda: None
    try:
        previous = signal.signal(signal.SIGINT, _on_sigint)
    except ValueError:  # not the main thread: signals are not ours to take there
        return lambda: None
    _deferring = True
    hook = sys.unraisablehook
    sys.unraisablehook = _unraisable(hook)

    def restore() -> None:
        global _deferring
        _deferring = False
        _received.clear()
        signal.signal(signal.SIGINT, previous)
        sys.unraisablehook = hook

    return restore


def raise_from_now() -> None:
    """From now on a Ctrl-C raises KeyboardInterrupt (and one that came while deferring, now)."""
    global _deferring
    _deferring = False
    if _received:
        raise KeyboardInterrupt


def defer() -> None:
    """From now on a Ctrl-C is only remembered, never raised: the run's checkpoints act on it."""
    global _deferring
    _deferring = True


def received() -> str | None:
    """The first signal remembered and not yet acted on (``"SIGINT"``), or None."""
    return _received[0] if _received else None


def take() -> list[str]:
    """The signals remembered so far, oldest first; they count as acted on from now."""
    names = list(_received)
    _received.clear()
    return names


@contextmanager
def stop_on_signals(loop: asyncio.AbstractEventLoop, stop: Callable[[str], None],
                    signals: Iterable[int] = STOP_SIGNALS) -> Iterator[None]:
    """Within the block, each of ``signals`` calls ``stop(name)`` on ``loop``; a Ctrl-C remembered
    before the block calls it at once. Afterwards SIGINT is remembered again if it was before (asyncio
    puts Python's default handler back when a handler is removed)."""
    signals = tuple(signals)
    ours = signal.getsignal(signal.SIGINT) is _on_sigint
    for sig in signals:
        loop.add_signal_handler(sig, stop, signal.Signals(sig).name)
    try:
        for name in take():
            stop(name)
        yield
    finally:
        for sig in signals:
            loop.remove_signal_handler(sig)
        if ours and signal.SIGINT in signals:
            signal.signal(signal.SIGINT, _on_sigint)
