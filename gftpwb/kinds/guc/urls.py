"""Is a test's source or target something globus-url-copy reads as the user meant? Checked when the
scenario is validated, so a typo is an error at its line and column instead of a failed run. Pure.

What guc 10.12 does with what it is given (tried one by one against the lab's server):

* ``ftp://``, ``gsiftp://``, ``sshftp://`` (a GridFTP server), ``http://``, ``https://`` and
  ``file://`` URLs, the scheme in lower case only (``FTP://`` and ``FILE://`` are refused: "error
  parsing url scheme"), with a host (``ftp:///path`` is refused) of letters, digits, ``-`` and ``.``
  (``host_x`` is refused) or an IPv6 address in brackets, an optional port and a path. A port that is
  not a number from 1 to 65535 is not refused but misread (``:28x1`` connects to port 28,
  ``:99999`` to 34463), and ``ftp://host:2811`` without a path fails on the server;
* a local file: ``file:///path``, ``file://localhost/path`` or ``file:/path``; ``file://tmp/x``
  silently drops the host ``tmp`` and opens ``/x``;
* anything without ``://`` is a path on the host guc runs on, relative to its working directory:
  ``/dev/zero`` and ``data/in`` as well as the typos ``ftp//host:2811/x``, ``ftp:/host/x`` and
  ``file:x``, which guc reports only as a file it cannot open (and as a target, writes). ``~`` is not
  expanded (no shell runs guc).

So local paths stay allowed, absolute or relative; what looks like a URL must be one guc reads.
"""

from __future__ import annotations

import difflib
import functools
import re

SCHEMES = ("ftp", "gsiftp", "sshftp", "http", "https", "file")
_SCHEME_LIKE = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)(?P<sep>:/*|//+)(?P<rest>.*)$", re.S)
_HOST = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$")
_IPV6 = re.compile(r"^\[[0-9A-Fa-f:.]+\]$")
_SCHEME_LIST = "ftp, gsiftp, sshftp, http, https or file"


def _close_scheme(word: str) -> str | None:
    close = difflib.get_close_matches(word.lower(), SCHEMES, n=1, cutoff=0.75)
    return close[0] if close else None


@functools.lru_cache(maxsize=4096)
def url_problem(value: str) -> str | None:
    """What is wrong with ``value`` as a guc source or target, in words; None when guc reads it as
    meant (a URL of a scheme it knows, or a local path). Every problem is named; a URL is suggested
    only when it passes this check itself (a suggestion that fixed the scheme but kept a bad port
    would be another error on the next try). Cached: the tests of a generated scenario (20,000 of
    them) mostly share a few URLs."""
    if "://" in value:
        scheme, rest = value.split("://", 1)
        if scheme in SCHEMES:
            problem = _rest_problem(scheme, rest)
            return None if problem is None else _about(value, problem)
        return _scheme_problem(value, scheme, rest)
    if value.startswith("~"):
        return f"{value!r}: guc does not expand ~ (no shell runs it); write the whole path"
    match = _SCHEME_LIKE.match(value)
    if match is None:
        return None  # a local path
    scheme, sep, rest = match["scheme"], match["sep"], match["rest"]
    if scheme == "file":
        if sep == ":/":
            return None  # file:/path, which guc reads as file:///path
        return (f"{value!r} is not a file URL, so guc would take it for a local file of that name; write "
                "file:///PATH, or the path alone")
    meant = scheme.lower() if scheme.lower() in SCHEMES else (_close_scheme(scheme) if "/" in sep else None)
    if meant is None:
        return None  # a relative path that merely starts with a word and a colon or two slashes
    said = f"{value!r} is not a URL, so guc would take it for a local file of that name"
    further = _rest_problem(meant, rest)
    if further is None:
        return f"{said}; did you mean '{meant}://{rest}'?"
    return f"{said}; written as a URL ({meant}://), {_as_clause(further)}"


def _about(value: str, problem: str) -> str:
    """``problem`` (a phrase of :func:`_rest_problem`) said of ``value``."""
    return f"{value!r} {problem}" if problem.startswith(("has ", "names ")) else f"{value!r}: {problem}"


def _as_clause(problem: str) -> str:
    """``problem`` as a clause of its own after another problem of the same URL."""
    return f"it {problem}" if problem.startswith(("has ", "names ")) else problem


def _scheme_problem(value: str, scheme: str, rest: str) -> str:
    lower = scheme.lower() in SCHEMES
    meant = scheme.lower() if lower else _close_scheme(scheme)
    further = _rest_problem(meant, rest) if meant else None
    if lower:
        said = f"{value!r}: guc reads the scheme only in lower case"
        return f"{said}: '{meant}://{rest}'" if further is None else f"{said} ({meant}); {_as_clause(further)}"
    said = f"{value!r}: unknown URL scheme '{scheme}' (guc reads {_SCHEME_LIST}"
    if meant is None:
        return f"{said})"  # no scheme to read the rest by
    if further is None:
        return f"{said}); did you mean '{meant}://{rest}'?"
    return f"{said}; did you mean {meant}?); {_as_clause(further)}"


def _rest_problem(scheme: str, rest: str) -> str | None:
    """What is wrong with what follows ``scheme://``, as a phrase (``has no host: ...``, ``port '28x1'
    is not ...``); None when guc reads it."""
    authority, slash, _path = rest.partition("/")
    if scheme == "file":
        if authority not in ("", "localhost"):
            return (f"names the host '{authority}', which guc ignores (it opens /{_path}); a local file is "
                    "file:///path, with three slashes")
        return None
    hostport = authority.rpartition("@")[2]
    if hostport.startswith("[") and "]" in hostport:
        host, _, after = hostport.partition("]")
        host += "]"
        port_text = after[1:] if after.startswith(":") else None
        bad_after = after and not after.startswith(":")
    else:
        host, colon, port_text_or = hostport.partition(":")
        port_text = port_text_or if colon else None
        bad_after = False
    if not host:
        return f"has no host: {scheme}://HOST[:PORT]/PATH"
    if bad_after or not (_HOST.match(host) or _IPV6.match(host)):
        return f"'{host}' is not a host name guc reads (letters, digits, '-' and '.', or [IPv6])"
    if port_text is not None and not (port_text.isdigit() and 1 <= int(port_text) <= 65535):
        return f"port '{port_text}' is not a port number (1 to 65535)"
    if not slash:
        return f"has no path after the host; guc needs one: {scheme}://{rest}/PATH"
    return None
