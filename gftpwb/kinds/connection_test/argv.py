"""A connection test's command line: what planning needs, without the conversation parser."""

from __future__ import annotations

from gftpwb.kinds.guc.driver import GUC

CONNECTION_TEST_LENGTH = 1  # bytes, as tgftp's -len 1


def build_connection_argv(source: str, target: str, extra_args: tuple[str, ...] = ()) -> tuple[str, ...]:
    """``globus-url-copy -dbg -vb -len 1 <extra args> SOURCE TARGET`` (tgftp 0.4 / 0.7.1 behaviour)."""
    return (GUC, "-dbg", "-vb", "-len", str(CONNECTION_TEST_LENGTH), *extra_args, source, target)
