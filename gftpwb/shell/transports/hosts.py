"""Which transport runs on which host: ``local`` is this machine, every other name an SSH host of
the scenario's inventory. One :class:`HostTransports` per scenario run, closed at its end."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from gftpwb.core.scenario.model import LOCAL, Host
from gftpwb.core.transport import Transport

from .local import LocalTransport
from .ssh import SshLimits, SshPool


class HostTransports:
    """``transport_for(name)`` for the executor; SSH connections are opened on first use."""

    def __init__(self, hosts: Sequence[Host] = (), *, accept_new_host_keys: bool = False,
                 notify: Callable[[str], None] | None = None, limits: SshLimits | None = None,
                 local: Transport | None = None):
        self.local = local or LocalTransport()
        self.pool = SshPool(hosts, accept_new_host_keys=accept_new_host_keys, notify=notify, limits=limits)

    def __call__(self, name: str) -> Transport:
        if name == LOCAL:
            return self.local
        return self.pool.transport(name)

    async def close(self) -> None:
        """Stop whatever still runs remotely and close every connection."""
        await self.pool.close()
        await self.local.close()
