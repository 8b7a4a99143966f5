"""The environment kept in meta.json (gftpwb.core.environment, the probe's new facts): what is probed
on which host, and how the answers are read."""

import subprocess

from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.environment import probes, url_host
from gftpwb.core.hostcheck import Route, parse_probe, probe_script, server_version
from gftpwb.core.plan import plan

SCENARIO = """\
version: 1
name: env
hosts: {h1: {address: 10.0.0.2}, h2: {address: 10.0.0.3}}
defaults: {options: {length: 1M}}
tests:
  - {id: third, kind: guc, source: "gsiftp://dtn1.example.org:2812/dev/zero", target: "ftp://[fd00::5]:2811/dev/null"}
  - {id: client, kind: guc, on: [h1, h2], source: "ftp://10.0.0.1:2811/dev/zero", target: "file:///dev/null"}
  - {id: sim, kind: guc, engine: simulated, source: "gsiftp://nowhere.example/x", target: "gsiftp://b.example/y"}
  - {id: conn, kind: connection-test, source: "ftp://10.0.0.1:2811/dev/zero", target: "ftp://10.0.0.1:2811/dev/null"}
"""


def test_each_host_probes_the_servers_of_its_own_real_runs():
    wanted = probes(plan(load_scenario_text(SCENARIO, "env.yaml")))
    assert sorted(wanted) == ["h1", "h2", "local"]
    assert wanted["local"].servers == ["gsiftp://dtn1.example.org:2812/", "ftp://[fd00::5]:2811/",
                                       "ftp://10.0.0.1:2811/"]
    assert wanted["local"].addresses == ["dtn1.example.org", "fd00::5", "10.0.0.1"]  # simulated: nobody
    assert wanted["h1"].servers == wanted["h2"].servers == ["ftp://10.0.0.1:2811/"]


def test_url_host():
    assert url_host("gsiftp://user@dtn:2811/x") == "dtn"
    assert url_host("ftp://[::1]:2811/") == "::1" and url_host("ftp://h/") == "h"


def test_probe_answers_are_read_into_facts():
    facts = parse_probe("kernel=6.1\ncpu_model=Test CPU @ 2GHz\ncpu_count=8\n"
                        "net/ipv4/tcp_congestion_control=cubic\nnet/ipv4/tcp_available_congestion_control=reno cubic\n"
                        "banner.ftp://h:2811/=h GridFTP Server 13.24 (gcc64, 1653033972-1) [GCT 6.2] ready.\n"
                        "banner.ftp://dead:1/=\nroute.h=10.0.0.1 veth0 1500\nroute.nowhere=  \n")
    env = facts.environment()
    assert (env["cpu_model"], env["cpu_count"], env["tcp"]["congestion_control"]) == ("Test CPU @ 2GHz", 8, "cubic")
    assert env["tcp"]["congestion_available"] == ["reno", "cubic"]
    assert env["servers"] == {"ftp://h:2811/": {"banner": "h GridFTP Server 13.24 (gcc64, 1653033972-1) [GCT 6.2] "
                                                          "ready.", "version": "13.24"},
                              "ftp://dead:1/": {"banner": None, "version": None}}
    assert facts.routes == {"h": Route("10.0.0.1", "veth0", 1500), "nowhere": Route(None, None, None)}
    assert server_version("220 Service ready") is None


def test_probe_script_quotes_what_comes_from_the_scenario(tmp_path):
    marker = tmp_path / "pwned"
    script = probe_script([f"ftp://x;touch {marker}:2811/"], [f"$(touch {marker})"])
    out = subprocess.run(["/bin/sh", "-c", script], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and not marker.exists()
    assert f"route.$(touch {marker})=" in out.stdout
