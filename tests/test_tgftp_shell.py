"""gftpwb.tgftp.bash against real bash: the words bash makes of a command line, its arithmetic,
coreutils timeout's durations and echo -e, compared on the same inputs (hypothesis)."""

from __future__ import annotations

import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gftpwb.tgftp.bash import arith, coreutils_duration, echo_e, expand

ENV = {"HOME": "/home/u", "FOO": "a b", "EMPTY": "", "SEMI": "x;y", "NUM": "12", "TABBY": " lead\ttrail ",
       "PATH": "/usr/bin:/bin"}
PIECES = ["a", "b", "-len", "1G", " ", "  ", "\t", "'", '"', "\\", "$FOO", "$EMPTY", "$UNSET", "${FOO}",
          "${UNSET:-d f}", "${EMPTY-x}", "${FOO:+y}", "$HOME", "~", "~/x", "#", "x#y", "$SEMI", "$TABBY", ";",
          "'a b'", '"c d"', '"$FOO"', "'$FOO'", "\\ ", "\\$FOO", "$'\\t'", "*", "?", "=~", ":"]


def bash_words(text: str, env: dict[str, str], ifs: str | None, cwd) -> list[str]:
    prefix = f"IFS='{ifs}'; " if ifs is not None else ""
    script = f"{prefix}printf '%s\\0' START {text}\n"
    proc = subprocess.run(["bash", "--norc", "-c", script], capture_output=True, env=env, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.decode().split("\0")[1:-1]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=8), st.sampled_from([None, ";"]))
def test_words_match_bash(tmp_path, pieces, ifs):
    text = "".join(pieces)
    result = expand(text, ENV, ifs=ifs or " \t\n")
    if result.problems:
        return  # not ours to evaluate: reported instead
    assert result.words == bash_words(text, ENV, ifs, tmp_path), text


@pytest.mark.parametrize("text, words", [
    ('"-vb -p 4 -tcp-bs 4M -len 1G"', ["-vb -p 4 -tcp-bs 4M -len 1G"]),
    ("-vb -p 4 # old: -p 8", ["-vb", "-p", "4"]),
    ("~/logs/x.log", ["/home/u/logs/x.log"]),
    ("a\\\nb", ["ab"]),
])
def test_known_lines(text, words):
    assert expand(text, ENV).words == words


@pytest.mark.parametrize("text, what", [
    ("$(date)", "command substitution"), ("`date`", "command substitution"), ("$((1+1))", "arithmetic"),
    ("$$", "special parameter"), ("$1", "special parameter"), ("a{1,2}", "brace expansion"),
    ("a > b", "operator"), ("a | b", "operator"), ("${FOO#a}", "parameter expansion"), ("~root", "~user"),
    ("'open", "unterminated"),
])
def test_what_is_not_evaluated_is_reported(text, what):
    problems = expand(text, ENV).problems
    assert problems and what in problems[0].message


ARITH = ["0", "30", "abc", "5m", "2.5", "-1", " 3", "", "010", "0x5", "1e2", "3 ", "0.0", "NUM", "NUM*2",
         "2x", "1+1", "(3)", "-(2)", "08", "16#ff", "7/2", "-7/2", "7%3", "FOO", "EMPTY", "1 2", "\t4"]


@pytest.mark.parametrize("text", ARITH)
def test_arithmetic_matches_bash(text):
    proc = subprocess.run(["bash", "--norc", "-c", 'echo $(( $1 ))', "_", text], capture_output=True, text=True,
                          env={"NUM": "12", "FOO": "NUM+1", "EMPTY": ""})
    try:
        ours: int | None = arith(text, {"NUM": "12", "FOO": "NUM+1", "EMPTY": ""})
    except ValueError:
        ours = None
    theirs = int(proc.stdout) if proc.returncode == 0 and proc.stdout.strip() else None
    assert ours == theirs, (text, proc.stderr)


DURATIONS = ["5m", "2.5", "-1", " 3", "010", "0x5", "1e2", "3 ", "0.0", "1d", ".5", "+3", "inf", "3s", "3S",
             "0x1p1", "nan", "", "abc", "1h", "2.5m", "Infinity", "1_0"]


@pytest.mark.parametrize("text", DURATIONS)
def test_durations_match_coreutils_timeout(text):
    # `timeout D true` exits 125 when it refuses D; a duration it reads runs `true` (status 0).
    proc = subprocess.run(["timeout", text, "true"], capture_output=True)
    assert (coreutils_duration(text) is not None) == (proc.returncode == 0), text


@given(st.lists(st.sampled_from(["a", "\\", "n", "t", "c", "0", "1", "7", "x", "4", "1", "u", "e", " ", "\\\\"]),
                max_size=10))
@settings(max_examples=200, deadline=None)
def test_echo_e_matches_bash(pieces):
    text = "".join(pieces)
    proc = subprocess.run(["bash", "--norc", "-c", 'echo -en "$1"', "_", text], capture_output=True)
    assert echo_e(text).encode("utf-8", "surrogateescape") == proc.stdout.replace(b"\xc2", b"") or \
        echo_e(text) == proc.stdout.decode("latin-1"), repr(text)
