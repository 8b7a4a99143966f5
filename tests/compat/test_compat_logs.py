"""tgftp_log 0.2.0 and gftpwb side by side on real and odd logs, and tag logs through import/export.

* Every log the real tgftp wrote in this session's runs, plus odd logs made here (CRLF, no final
  newline, repeated and unclosed tags, a tag name in a comment, NUL bytes, bad UTF-8), is read for
  every attribute (the ten, and odd ones) by the real tgftp_log and by gftpwb's reader; the output
  must be the same byte for byte, with the same exit status and message.
* The installed ``tgftp_log`` drop-in and ``gftpwb log get`` give the same answers as the real
  script on the command line, including its argument errors.
* ``gftpwb import taglogs`` + ``gftpwb export taglogs`` give back every real log so that the real
  tgftp_log reads from the copy what it reads from the original (CRLF logs: what it reads once the
  line ends are LF), and logs of two batchfiles with the same test numbers do not collide.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from compat.harness import ATTRIBUTES, VENV_BIN, reference_dir, run_many

from gftpwb.core.masking import mask_text
from gftpwb.tgftp.log import get

ODD_ATTRIBUTES = ("RATE", "GSIFTP", "TGFTP", "GSIFTP_TRANSFER_RAT", "gsiftp_transfer_rate", "GFTPWB_RECORD",
                  "GFTPWB_STATUS", "", "A B", "-v", "GSIFTP_TRANSFER_RATE/x", "GSIFTP_TRANSFER_.ATE", "TRANSFER_S")
_NOISE = re.compile(r"^(grep|sed|Usage: grep|Try 'grep|.*tgftp_log: line \d+:|bash: warning|.*: warning: command)")
REAL = "real"


def real_tgftp_log(*args: str, cwd: Path) -> tuple[int, bytes, list[str]]:
    proc = subprocess.run([str(reference_dir() / "bin" / "tgftp_log"), *args], capture_output=True, cwd=cwd)
    return proc.returncode, proc.stdout, _messages(proc.stderr)


def real_answer(attribute: str, path: str, cwd: Path) -> tuple[int, bytes, list[str]]:
    return real_tgftp_log("-a", attribute, "-f", path, cwd=cwd)


def _messages(stderr: bytes) -> list[str]:
    """tgftp_log's own messages; what grep, sed and bash print around them is not part of its interface."""
    return [line for line in stderr.decode("utf-8", "replace").splitlines() if line and not _NOISE.match(line)]


def odd_logs(sample: bytes) -> dict[str, bytes]:
    """Logs no tool writes on purpose but evaluation scripts meet: built around a real one."""
    tail = b"<GSIFTP_TRANSFER_RATE>\n12 MB/s\n</GSIFTP_TRANSFER_RATE>\n"
    return {
        "crlf.log": sample.replace(b"\n", b"\r\n"),
        "no-final-newline.log": sample.rstrip(b"\n"),
        "repeated.log": sample + tail + tail.replace(b"12", b"13"),
        "unclosed.log": sample + b"<GSIFTP_TRANSFER_ERROR>\nhalf a line",
        "comment-opens-a-tag.log": b"<GSIFTP_TRANSFER_LOG_COMMENT>\n#see <GSIFTP_TRANSFER_RATE> here\n"
                                   b"</GSIFTP_TRANSFER_LOG_COMMENT>\n" + sample,
        "inline-tags.log": b"x<GSIFTP_TRANSFER_RATE>y\n1\n<a GSIFTP_TRANSFER_RATE>\n2\nz</GSIFTP_TRANSFER_RATE>\n",
        "nul-and-bad-utf8.log": sample.replace(b"</GSIFTP_TRANSFER_COMMAND_OUTPUT>",
                                               b"a\x00b \xff\xfe\n</GSIFTP_TRANSFER_COMMAND_OUTPUT>"),
        "only-empty-lines.log": b"<GSIFTP_TRANSFER_LOG_COMMENT>\n\n\n</GSIFTP_TRANSFER_LOG_COMMENT>\n",
        "empty.log": b"",
        "not-a-log.log": b"hello\nworld\n",
    }


@pytest.fixture(scope="session")
def log_corpus(batch_runs, single_runs, tmp_path_factory) -> tuple[Path, list[Path]]:
    """A directory with every log tgftp wrote (renamed <case>-<name> so none collide) and the odd ones,
    and the list of tgftp's own."""
    root = tmp_path_factory.mktemp("logs")
    real: list[Path] = []
    for kind, runs in (("b", batch_runs), ("s", single_runs)):
        for case, by_path in sorted(runs.items()):
            run = by_path["tgftp"]
            for name in sorted(run.logs):
                source = (run.log_root or run.workdir) / name
                target = root / f"{kind}-{case}.csv_{name.replace('/', '_').split('.csv_', 1)[-1]}"
                target.write_bytes(source.read_bytes())
                real.append(target)
    sample = next(p for p in real if b"<GSIFTP_TRANSFER_RATE>" in p.read_bytes()).read_bytes()
    for name, data in odd_logs(sample).items():
        (root / name).write_bytes(data)
    return root, real


def test_the_log_corpus_is_real_and_varied(log_corpus):
    _, real = log_corpus
    assert len(real) >= 60
    texts = [p.read_bytes() for p in real]
    assert any(b"<GSIFTP_TRANSFER_ERROR>" in t for t in texts) and any(b"<GSIFTP_TRANSFER_LIST>" in t for t in texts)
    assert any(b"debug: " in t for t in texts)  # connection tests


def test_gftpwbs_reader_prints_what_tgftp_log_prints(log_corpus):
    """The ten attributes on every log, the odd attributes on the odd logs and a few real ones."""
    root, real = log_corpus
    odd_files = [root / name for name in sorted(odd_logs(b""))] + real[::12]
    jobs = [(real_answer, attribute, str(path), root) for path in sorted(root.iterdir()) for attribute in ATTRIBUTES]
    jobs += [(real_answer, attribute, str(path), root) for path in odd_files for attribute in ODD_ATTRIBUTES]
    expected = run_many(jobs, workers=4)
    differences = []
    for (_, attribute, path, _), (code, out, messages) in zip(jobs, expected, strict=True):
        ours = get(attribute, path)
        if (ours[0], ours[1], _messages(ours[2].encode())) != (code, out, messages):
            differences.append(f"{Path(path).name} -a {attribute!r}: tgftp_log {(code, out, messages)!r} != gftpwb "
                               f"{(ours[0], ours[1], _messages(ours[2].encode()))!r}")
    assert not differences, "\n".join(differences[:20])


ARGUMENTS = [
    [], ["-a"], ["-a", "GSIFTP_TRANSFER_RATE"], ["-a", "GSIFTP_TRANSFER_RATE", "-f"], ["--help", "x"],
    ["-a", "GSIFTP_TRANSFER_RATE", "-f", "LOG", "-a", "GSIFTP_TRANSFER_SIZE"],
    ["-f", "LOG", "-f", "LOG", "-a", "GSIFTP_TRANSFER_RATE"], ["--bogus", "1", "2", "3"],
    ["-a", "GSIFTP_TRANSFER_RATE", "-f", "LOG", "extra"], ["-a", "GSIFTP_TRANSFER_RATE", "-f", "LOG", ""],
    ["-a", "GSIFTP_TRANSFER_RATE", "", "x", "-f", "LOG"], ["-f", "missing.log", "-a", "GSIFTP_TRANSFER_RATE"],
    ["-f", "missing.log", "-a", "NOPE"], ["--version"], ["-V"],
    ["--get-attribute", "GSIFTP_TRANSFER_SIZE", "--file", "LOG"], ["-a", "GSIFTP_TRANSFER_RATE", "-f", "."],
]


@pytest.mark.parametrize("arguments", ARGUMENTS, ids=lambda a: " ".join(a) or "(none)")
def test_the_tgftp_log_drop_in_on_the_command_line(arguments, log_corpus):
    root, real = log_corpus
    log = next(str(p) for p in real if b"<GSIFTP_TRANSFER_RATE>" in p.read_bytes())
    argv = [log if a == "LOG" else a for a in arguments]
    theirs = real_tgftp_log(*argv, cwd=root)
    proc = subprocess.run([str(VENV_BIN / "tgftp_log"), *argv], capture_output=True, cwd=root)
    ours = (proc.returncode, proc.stdout, _messages(proc.stderr))
    if ours != theirs and (any(a in ("--help",) for a in argv[:1]) and ours[0] == theirs[0] == 0):
        return  # the help text is gftpwb's own (allowed: tgftp's GPL text is not copied)
    usage = b"usage: tgftp_log"
    if usage in theirs[1] and usage in ours[1]:  # the usage text is gftpwb's own too; the status is tgftp_log's
        assert (ours[0], ours[2]) == (theirs[0], theirs[2])
        return
    assert ours == theirs


def test_gftpwb_log_get_prints_what_tgftp_log_prints(log_corpus):
    """One process per attribute: the ten on a log with all of them, through ``gftpwb log get``."""
    root, real = log_corpus
    logs = [p for p in real if b"<GSIFTP_TRANSFER_LIST>" in p.read_bytes()][:1] + \
        [p for p in real if b"<GSIFTP_TRANSFER_ERROR>" in p.read_bytes()][:1]
    for attribute in ATTRIBUTES:
        for log in logs:
            theirs = real_tgftp_log("-a", attribute, "-f", str(log), cwd=root)
            proc = subprocess.run([sys.executable, "-m", "gftpwb", "log", "get", attribute, str(log)],
                                  capture_output=True, cwd=root, env={**os.environ, "NO_COLOR": "1"})
            messages = [m.replace("gftpwb:", "tgftp_log:", 1) for m in _messages(proc.stderr)]
            assert (proc.returncode, proc.stdout, messages) == theirs, (attribute, log.name)


def with_blanks(data: bytes) -> bytes:
    """The log with blanks after (or before) its tag lines, as an editor or a script may leave them:
    tgftp_log still finds the tags, and prints such a line with the value."""
    lines = data.split(b"\n")
    tags = [f"<{a}>".encode() for a in ATTRIBUTES] + [f"</{a}>".encode() for a in ATTRIBUTES]
    blanks = (b" ", b"\t", b"  ", b"")
    out = []
    for index, line in enumerate(lines):
        if line in tags:
            blank = blanks[index % len(blanks)]
            line = blank + line if index % 5 == 0 else line + blank
        out.append(line)
    return b"\n".join(out)


def with_bytes(data: bytes) -> bytes:
    """The log with bytes that are not UTF-8 in guc's output, the comment and the command."""
    output_end = b"</GSIFTP_TRANSFER_COMMAND_OUTPUT>"
    return (data.replace(output_end, b"caf\xe9 \xff\xfe\x00 \xc3\n" + output_end, 1)
            .replace(b"<GSIFTP_TRANSFER_LOG_COMMENT>\n", b"<GSIFTP_TRANSFER_LOG_COMMENT>\n\xe9t\xe9 ", 1)
            .replace(b"globus-url-copy ", b"globus-url-copy -ss '/CN=caf\xe9' ", 1))


def test_import_then_export_gives_tgftp_log_the_same_values(log_corpus, tmp_path):
    root, real = log_corpus
    variants = tmp_path / "variants"
    variants.mkdir()
    for original in real[::3]:
        (variants / f"blanks-{original.name}").write_bytes(with_blanks(original.read_bytes()))
        (variants / f"bytes-{original.name}").write_bytes(with_bytes(original.read_bytes()))
    logs = [*real, root / "crlf.log", root / "nul-and-bad-utf8.log", *sorted(variants.iterdir())]
    assert any(b"\xe9" in p.read_bytes() for p in real)  # the corpus's own logs with a Latin-1 file name
    py = [sys.executable, "-m", "gftpwb"]
    imported = subprocess.run([*py, "import", "taglogs", *map(str, logs), "--results", str(tmp_path / "r")],
                              capture_output=True, text=True)
    assert imported.returncode == 0, imported.stderr
    assert "comes from both" not in imported.stderr  # two batchfiles' logs with the same numbers
    exported = subprocess.run([*py, "export", "taglogs", str(tmp_path / "r"), "-o", str(tmp_path / "e")],
                              capture_output=True, text=True)
    assert exported.returncode == 0, exported.stderr
    assert sorted(p.name for p in (tmp_path / "e").iterdir()) == sorted(p.name for p in logs)
    lf = tmp_path / "crlf-as-lf.log"
    lf.write_bytes((root / "crlf.log").read_bytes().replace(b"\r\n", b"\n"))
    pairs = [(lf if p.name == "crlf.log" else p, tmp_path / "e" / p.name) for p in logs]
    jobs = [(real_answer, attribute, str(path), root)
            for original, copy in pairs for path in (original, copy) for attribute in ATTRIBUTES]
    answers = run_many(jobs, workers=4)
    differences = []
    for index in range(0, len(jobs), 2 * len(ATTRIBUTES)):
        for offset, attribute in enumerate(ATTRIBUTES):
            original, copy = answers[index + offset], answers[index + len(ATTRIBUTES) + offset]
            original_path, copy_path = jobs[index][2], jobs[index + len(ATTRIBUTES)][2]
            messages = [m.replace(copy_path, original_path) for m in copy[2]]
            # passwords in URLs are masked in what gftpwb stores: the copy has them masked
            masked = mask_text(original[1].decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")
            if (original[0], masked, original[2]) != (copy[0], copy[1], messages):
                differences.append(f"{Path(original_path).name} {attribute}: {original!r} != {copy!r}")
    assert not differences, "\n".join(differences[:20])
