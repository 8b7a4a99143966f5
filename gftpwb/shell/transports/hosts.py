"""Which transport runs on which host: ``local`` is this machine, a node slot of the scenario's
``slurm:`` block (``node1`` ..) a node of its Slurm allocation, every other name an SSH host of the
scenario's inventory. One :class:`HostTransports` per scenario run, closed at its end."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from gftpwb.core.scenario.model import LOCAL, Host
from gftpwb.core.slurm.model import SlurmSetup
from gftpwb.core.transport import Transport

from .local import LocalTransport
from .ssh import SshLimits, SshPool

if TYPE_CHECKING:
    from .slurm.launcher import SlurmLauncher


class HostTransports:
    """``transport_for(name)`` for the executor; SSH connections are opened on first use, the Slurm
    allocation by :meth:`open_slurm` (or on first use)."""

    def __init__(self, hosts: Sequence[Host] = (), *, accept_new_host_keys: bool = False,
                 notify: Callable[[str], None] | None = None, limits: SshLimits | None = None,
                 local: Transport | None = None, slurm: SlurmSetup | None = None,
                 inform: Callable[[str], None] | None = None):
        self.local = local or LocalTransport()
        self.pool = SshPool(hosts, accept_new_host_keys=accept_new_host_keys, notify=notify, limits=limits)
        self.slurm: SlurmLauncher | None = None
        self._slots: frozenset[str] = frozenset(slurm.slots) if slurm is not None else frozenset()
        if slurm is not None:
            from .slurm.launcher import SlurmLauncher  # only scenarios on Slurm load it

            self.slurm = SlurmLauncher(slurm, notify=inform or notify)

    def __call__(self, name: str) -> Transport:
        if name == LOCAL:
            return self.local
        if name in self._slots and self.slurm is not None:
            return self.slurm.transport(name)
        return self.pool.transport(name)

    async def open_slurm(self) -> dict[str, object]:
        """Find or ask for the Slurm allocation (AllocationError when it cannot be had); what
        meta.json records of it ({} without Slurm)."""
        if self.slurm is None:
            return {}
        await self.slurm.ensure()
        return self.slurm.environment

    async def close(self) -> None:
        """Stop whatever still runs remotely and close every connection; release a Slurm allocation
        gftpwb asked for."""
        if self.slurm is not None:
            await self.slurm.close()
        await self.pool.close()
        await self.local.close()
