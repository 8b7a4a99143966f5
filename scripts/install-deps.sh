#!/usr/bin/env bash
# Install the Debian packages gftpwb needs, only those missing; `apt-get update` runs once, and only
# when something has to be installed. Used by `make demo` and `make test`.
#   scripts/install-deps.sh demo   -> what the quickstart needs (GridFTP client and server)
#   scripts/install-deps.sh test   -> everything the test suite runs against
set -euo pipefail

want=(globus-gass-copy-progs globus-gridftp-server-progs coreutils procps python3-venv)
if [ "${1:-demo}" = "test" ]; then
    want+=(openssh-server openssh-client iproute2 iperf3 psmisc tmux)
    # gfapi tests: glusterd and a volume, libgfapi headers and a compiler for the worker, fio to compare
    want+=(glusterfs-server libglusterfs-dev gcc libc6-dev fio)
    # report --html: a headless browser opens the page, checks its DOM and takes a screenshot
    want+=(chromium)
    # live results: Prometheus scrapes --metrics, the pushgateway takes pushes, node_exporter reads
    # report --openmetrics, promtool lints the exposition and the docs' alert rule
    want+=(prometheus prometheus-pushgateway prometheus-node-exporter jq)  # jq: the docs pipe the stream into it
    # shell completion (bash-completion, zsh, fish load the generated scripts) and the man page (man -l)
    want+=(bash-completion zsh fish man-db)
    # Slurm lab: munged, slurmctld and N slurmd on this machine; srun, salloc, squeue, scancel
    want+=(munge slurmctld slurmd slurm-client)
    # other protocols on the same path: xrootd (root:// and http:// with TPC), xrdcp, gfal-copy, davix
    want+=(xrootd-server xrootd-server-plugins xrootd-client openssl gfal2-util-scripts gfal2-plugin-http
           gfal2-plugin-xrootd gfal2-plugin-gridftp gfal2-plugin-file davix)
fi

missing=()
for pkg in "${want[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$pkg")
    fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing Debian packages: ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
