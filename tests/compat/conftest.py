"""Fixtures of the compat suite: the lab, and every case run by every tool, concurrently, once."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from compat.corpus import BATCH, SINGLE
from compat.harness import VENV_BIN, Lab, ToolRun, make_wrapper, reference_dir, run_many, run_tool

from gftpwb.shell.lab.gridftp import free_port

PY = sys.executable


@pytest.fixture(scope="session")
def lab(gridftp, tmp_path_factory):
    # The server runs as "nobody": its files must be in a directory everyone may read.
    data = Path(tempfile.mkdtemp(prefix="gftpwb-compat-", dir="/tmp"))
    data.chmod(0o755)
    (data / "small.bin").write_bytes(os.urandom(64 * 1024))
    (data / "one.bin").write_bytes(os.urandom(1024 * 1024))
    (data / "caf\udce9.bin").write_bytes(os.urandom(4096))  # named caf<0xE9>.bin: not UTF-8
    for path in data.iterdir():
        path.chmod(0o644)
        os.utime(path, (1_700_000_000, 1_700_000_000))  # the transfer lists show it
    (data / "sink").mkdir()
    (data / "sink").chmod(0o777)
    yield Lab(url=gridftp.url, dead=f"ftp://127.0.0.1:{free_port()}", data=data,
              wrapper_dir=make_wrapper(tmp_path_factory.mktemp("wrapper")))
    shutil.rmtree(data, ignore_errors=True)


def tgftp_program() -> str:
    return str(reference_dir() / "bin" / "tgftp")


def batch_job(path: str, case, base: Path, lab: Lab) -> ToolRun:
    workdir = base / path
    inputs = {case.filename: lab.fill(case.text, path).encode("utf-8", "surrogateescape")}
    name = case.filename
    kw = {"inputs": inputs, "dirs": case.dirs, "env": case.env}
    if path == "tgftp":
        return run_tool(path, [tgftp_program(), "-f", name], workdir, lab, **kw)
    if path == "dropin":
        return run_tool(path, [str(VENV_BIN / "tgftp"), "-f", name], workdir, lab, **kw)
    if path == "gftpwb-tgftp":
        return run_tool(path, [PY, "-m", "gftpwb", "tgftp", "-f", name], workdir, lab, program="tgftp", **kw)
    if path == "run":
        return run_tool(path, [PY, "-m", "gftpwb", "run", name, "--results", "results"], workdir, lab,
                        logs_in="results", program="", **kw)
    if path == "import":
        # gftpwb import BATCHFILE -o scenario.yaml, then gftpwb run scenario.yaml: both through gftpwb's CLI
        # entry point, in one process (a start-up less per case keeps the suite fast)
        script = ("import sys; from gftpwb.cli.main import main; "
                  f"sys.exit(main(['import', {name!r}, '-o', 'scenario.yaml']) or "
                  "main(['run', 'scenario.yaml', '--results', 'results']))")
        return run_tool(path, [PY, "-c", script], workdir, lab, logs_in="results", program="", **kw)
    raise ValueError(path)


def single_job(path: str, case, base: Path, lab: Lab) -> ToolRun:
    import shlex

    args = shlex.split(lab.fill(case.args, path))
    workdir = base / path
    kw = {"inputs": {name: lab.fill(text, path).encode("utf-8", "surrogateescape") for name, text in case.files},
          "dirs": case.dirs,
          "env": case.env}
    if path == "tgftp":
        return run_tool(path, [tgftp_program(), *args], workdir, lab, **kw)
    if path == "dropin":
        return run_tool(path, [str(VENV_BIN / "tgftp"), *args], workdir, lab, **kw)
    if path == "gftpwb-tgftp":
        return run_tool(path, [PY, "-m", "gftpwb", "tgftp", *args], workdir, lab, program="tgftp", **kw)
    raise ValueError(path)


@pytest.fixture(scope="session")
def batch_runs(lab, tmp_path_factory) -> dict[str, dict[str, ToolRun]]:
    base = tmp_path_factory.mktemp("batch")
    jobs, keys = [], []
    for case in BATCH:
        for path in ("tgftp", *case.paths):
            jobs.append((batch_job, path, case, base / case.name, lab))
            keys.append((case.name, path))
    results: dict[str, dict[str, ToolRun]] = {}
    for (name, path), run in zip(keys, run_many(jobs), strict=True):
        results.setdefault(name, {})[path] = run
    return results


@pytest.fixture(scope="session")
def single_runs(lab, tmp_path_factory) -> dict[str, dict[str, ToolRun]]:
    base = tmp_path_factory.mktemp("single")
    jobs, keys = [], []
    for case in SINGLE:
        for path in ("tgftp", *case.paths):
            jobs.append((single_job, path, case, base / case.name, lab))
            keys.append((case.name, path))
    results: dict[str, dict[str, ToolRun]] = {}
    for (name, path), run in zip(keys, run_many(jobs), strict=True):
        results.setdefault(name, {})[path] = run
    return results
