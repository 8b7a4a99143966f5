"""``gftpwb lab up|down|status``: the loopback GridFTP server and, with ``--hosts N``, namespace hosts
(:mod:`gftpwb.shell.lab.netlab`), with ``--gluster`` a GlusterFS volume (:mod:`gftpwb.shell.lab.gluster`),
with ``--slurm N`` a Slurm cluster of N nodes on this machine (:mod:`gftpwb.shell.lab.slurm`)
and with ``--xrootd`` XRootD servers (root:// and http://) on loopback and the hosts
(:mod:`gftpwb.shell.lab.xrootd`), in one state directory. With ``--rtt``, ``--loss``, ``--jitter``
or ``--link`` the namespace hosts talk to each other over WAN links (:mod:`gftpwb.shell.lab.wan`),
which ``lab link`` changes while they run."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict

from gftpwb.core.errors import EXIT_OK, UsageError
from gftpwb.core.wanlink import LinkSettings, parse_link_option, parse_pair, plan_links
from gftpwb.shell.lab.gluster import GlusterLab
from gftpwb.shell.lab.gridftp import GridftpLab
from gftpwb.shell.lab.netlab import NetLab
from gftpwb.shell.lab.slurm import SlurmLab, SlurmStatus
from gftpwb.shell.lab.xrootd import XrootdLab


def cmd_lab(args: argparse.Namespace) -> int:
    lab = GridftpLab(args.state_dir)
    hosts = NetLab(lab.state_dir)
    gluster = GlusterLab(lab.state_dir)
    slurm = SlurmLab(lab.state_dir)
    xrootd = XrootdLab(lab.state_dir)
    if args.lab_command == "link":
        return _change_links(hosts, args)
    if args.lab_command == "up":
        links, veth_rate = wan_request(args)
        if args.hosts or veth_rate:
            NetLab.check_request(args.hosts, veth_rate)
        if args.slurm:
            SlurmLab.check_request(args.slurm)
        if args.striped and not args.hosts:
            raise UsageError("--striped needs --hosts N: the data nodes run on the namespace hosts")
        before = lab.status().running
        status = lab.up(port=args.port, address=args.address)
        verb = "already running" if before else "started"
        print(f"GridFTP server {verb}: {status.url} (pid {status.pid}, log {status.log})")
        if args.hosts:
            hosts.up(args.hosts, rate=veth_rate, gridftp_on_hosts=args.gridftp_on_hosts, striped=args.striped,
                     links=links)
            _print_hosts(hosts.status())
        if args.gluster:
            g = gluster.up(address=args.gluster_address, volume=args.gluster_volume)
            print(f"GlusterFS volume {g.volume} started: server {g.address}, brick {g.brick}")
        if args.slurm:
            _print_slurm(slurm.up(args.slurm))
        if args.xrootd:
            net = hosts.status()
            xrootd.up(hosts=net["hosts"] if net else None)
            _print_xrootd(xrootd.status())
    elif args.lab_command == "down":
        if slurm.down():
            print("Slurm of the lab stopped (jobs cancelled, daemons and steps ended)")
        if xrootd.down():
            print("xrootd servers stopped")
        if gluster.down():
            print("GlusterFS volume of the lab stopped and deleted")
        had_hosts = hosts.down()
        if had_hosts:
            print("namespace hosts removed")
        print("GridFTP server stopped" if lab.down() else "GridFTP server was not running")
    else:
        status = lab.status()
        net = hosts.status()
        g = gluster.status() if gluster.configured else None
        s = slurm.status() if slurm.configured else None
        x = xrootd.status()
        if getattr(args, "vars", False):
            volume = {"volume": g.volume, "gluster": g.address} if g else None
            print(lab_vars(lab.state_dir, net, slurm.variables() if s else None, volume))
        elif args.json:
            print(json.dumps({"gridftp": lab.status_dict(), "hosts": net, **({"gluster": asdict(g)} if g else {}),
                              **({"slurm": slurm.status_dict()} if s else {}), **({"xrootd": x} if x else {})},
                             indent=1))
        else:
            state = f"running, pid {status.pid}" if status.running else "not running"
            print(f"gridftp  {status.url}  {state}  (state {status.state_dir})")
            _print_hosts(net)
            if g:
                state = "started" if g.running else "not running"
                print(f"gluster  {g.address}:/{g.volume}  {state}  (brick {g.brick})")
            if s:
                _print_slurm(s)
            if x:
                _print_xrootd(x)
    return EXIT_OK


def _wan_values(args: argparse.Namespace) -> dict[str, str]:
    """The WAN settings typed as options, by key (rate included), as LinkSettings.changed takes them."""
    names = {"rtt": args.rtt, "loss": args.loss, "jitter": args.jitter, "mtu": args.mtu, "rate": args.rate}
    return {key: value for key, value in names.items() if value is not None}


def wan_request(args: argparse.Namespace) -> tuple[dict, str]:
    """(the WAN links to make, the veths' rate) from lab up's options. --rtt, --loss or --jitter make a
    link between every two hosts; --link makes or changes one pair's, starting from the same settings;
    with any WAN link, --rate is the WAN links' and the veths (the controller's links) stay fast."""
    values = _wan_values(args)
    every_pair = any(key in values for key in ("rtt", "loss", "jitter"))
    if not (every_pair or args.link):
        if args.mtu is not None:
            raise UsageError("--mtu is the WAN links' MTU: give --rtt, --loss, --jitter or --link too")
        return {}, args.rate or ""
    if not args.hosts:
        raise UsageError("WAN links (--rtt, --loss, --jitter, --link) join namespace hosts: give --hosts N (2 or more)")
    try:
        base = LinkSettings().changed(values)
        pairs = dict(parse_link_option(text) for text in args.link)
        links = plan_links([f"h{i}" for i in range(1, args.hosts + 1)], base if every_pair else None, pairs)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if not links:
        raise UsageError("WAN links join two hosts: give --hosts 2 or more")
    return links, ""


def _change_links(hosts: NetLab, args: argparse.Namespace) -> int:
    values = _wan_values(args)
    if not values:
        raise UsageError("say what to change: --rate, --rtt, --loss, --jitter or --mtu (e.g. gftpwb lab link --rate "
                         "500mbit)")
    try:
        pairs = [parse_pair(text) for text in args.pair] or None
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    changed = hosts.change_links(values, pairs)
    if args.json:
        print(json.dumps(changed, indent=1))
    else:
        for link in changed:
            print(_link_line(link))
    return EXIT_OK


def _link_line(link: dict) -> str:
    settings = LinkSettings.from_dict(link["settings"])
    measured = link["rtt_measured_ms"]
    said = f"; measured RTT {measured:g} ms" if measured is not None else ""
    state = f"line pid {link['line_pid']}" if link["line_running"] else "line NOT running"
    drops = link.get("dropped")
    dropped = ""
    if drops is not None:
        dropped = (f"; the line dropped {drops['loss']} as asked (loss), {drops['full'] + drops['write']} of its own, "
                   f"{drops['behind']} behind (TUN queue)")
    return f"  wan {link['name']:<7} {settings.describe()}{said}; {state}{dropped}"


def lab_vars(state_dir: str, net: dict | None, slurm: dict[str, str] | None = None,
             gluster: dict[str, str] | None = None) -> str:
    """``--lab-var lab=DIR --lab-var ctrl=A --lab-var src=H1 --lab-var dst=H2``: the lab as a scenario's
    variables (the controller, the first host and the second, or the first again with one host), with
    a Slurm ``--lab-var slurm_conf=... --lab-var slurm_nodes=N --lab-var slurm_partition=lab``, and with
    a GlusterFS volume ``--lab-var volume=NAME --lab-var gluster=ADDRESS`` (its name and address are the
    state directory's own: see :mod:`gftpwb.shell.lab.gluster`).
    ``--lab-var`` rather than ``--set``: a scenario uses those it declares and ignores the others, so
    one lab's variables fit every scenario. The xrootd of a namespace host always has XRootD's ports,
    1094 and 8094 (scenarios/protocols.yaml's defaults), so none is said."""
    import shlex

    has_hosts = bool(net and net.get("hosts"))
    if not has_hosts and not slurm and not gluster:
        raise UsageError(f"the lab in {state_dir} has no namespace hosts, no Slurm and no GlusterFS volume; start "
                         "them with gftpwb lab up --hosts 2 (or more), --slurm N or --gluster")
    values = {"lab": state_dir}
    if net and has_hosts:
        hosts = net["hosts"]
        values.update({"ctrl": net["controller_address"], "src": hosts[0]["address"],
                       "dst": hosts[1 if len(hosts) > 1 else 0]["address"]})
    values.update(slurm or {})
    values.update(gluster or {})
    return " ".join(f"--lab-var {shlex.quote(f'{k}={v}')}" for k, v in values.items())


def _print_slurm(status: SlurmStatus) -> None:
    state = "running" if status.running else "NOT running"
    print(f"slurm    {len(status.nodes)} node(s) in partition {status.partition}, slurmctld {status.controller}, "
          f"{state}; SLURM_CONF={status.conf}")
    for node in status.nodes:
        daemon = f"slurmd pid {node.pid}" if node.running else "slurmd NOT running"
        print(f"  {node.name:<5} port {node.port}  {node.state or '?':<10} {daemon}")


def _print_hosts(net: dict | None) -> None:
    if not net:
        return
    rate = f", links shaped to {net['rate']}" if net["rate"] else ""
    print(f"hosts    {len(net['hosts'])} namespace host(s) on {net['subnet']}{rate}; controller "
          f"{net['controller_address']} (GridFTP {net['gridftp']['url']}, "
          f"{'running' if net['gridftp']['running'] else 'not running'})")
    for h in net["hosts"]:
        sshd = "sshd running" if h["sshd_running"] else "sshd NOT running"
        extra = f", GridFTP {h['gridftp_url']}" if h["gridftp_url"] else ""
        print(f"  {h['name']:<5} {h['address']:<15} netns {h['netns']}  {sshd}{extra}")
    striped = net.get("striped")
    if striped:
        for side in ("source", "target"):
            info = striped.get(side) or {}
            stripes = ", ".join(s["host"] + ("" if s["running"] else " (NOT running)") for s in info.get("stripes", []))
            state = "running" if info.get("running") else "NOT running"
            print(f"  striped {side:<6} {info.get('url')}  {state}; stripes: {stripes}")
        for k, urls in sorted((striped.get("subsets") or {}).items()):
            print(f"  striped over {k} node(s): {urls.get('source')} -> {urls.get('target')}")
    for link in net.get("links") or []:
        print(_link_line(link))
    print(f"  inventory: {net['inventory']} (user root, identity {net['identity']}, known_hosts {net['known_hosts']})")


def _print_xrootd(status: dict | None) -> None:
    for server in (status or {}).get("servers", []):
        state = f"running, pid {server['pid']}" if server["running"] else "NOT running"
        urls = f"{server['root_url']}  {server['http_url']}"
        print(f"xrootd   {server['place']:<5} {urls}  {state}  (log {server['log']})")
