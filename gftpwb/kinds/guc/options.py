"""The guc (globus-url-copy) options a scenario can set by name, and the flag each one becomes.

One table serves three readers: the schema builder (types and descriptions), the guc driver (argv,
in this order, which is also the order tgftp prints its auto-tune winner in), and the tgftp
batchfile importer (mapping ``-p 4`` back to ``parallel: 4``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

OptionType = Literal["count", "size", "flag", "level"]


@dataclass(frozen=True)
class GucOption:
    name: str  # the key in a scenario's ``options:`` and ``matrix:``
    flag: str  # guc's short flag
    type: OptionType
    description: str
    aliases: tuple[str, ...] = ()  # guc's long spellings, for importers


GUC_OPTIONS: tuple[GucOption, ...] = (
    GucOption("parallel", "-p", "count",
              "Parallel data streams (guc -p N). Any value, even 1, switches guc to extended block mode "
              "(MODE E); leave it unset for stream mode.", ("-parallel",)),
    GucOption("tcp_buffer", "-tcp-bs", "size",
              "TCP buffer size for each data channel (guc -tcp-bs), e.g. 4M. The kernel may cap it "
              "(net.core.rmem_max / wmem_max).", ("-tcp-buffer-size",)),
    GucOption("block_size", "-bs", "size",
              "Buffer size of the underlying transfer methods (guc -bs).", ("-block-size",)),
    GucOption("length", "-len", "size",
              "Bytes to read from the source (guc -len), e.g. 4G. Needed for a rate when the source is "
              "/dev/zero, which otherwise never ends.", ("-partial-length",)),
    GucOption("offset", "-off", "size",
              "Offset into the source for a partial transfer (guc -off).", ("-partial-offset",)),
    GucOption("concurrency", "-cc", "count",
              "Concurrent FTP connections for multi-file transfers (guc -cc).", ("-concurrency",)),
    GucOption("pipeline", "-pp", "flag",
              "Pipeline commands for multi-file transfers (guc -pp).", ("-pipeline",)),
    GucOption("fast", "-fast", "flag",
              "Reuse data channels and use MODE E for all transfers (guc -fast); recommended by Globus "
              "for GridFTP servers.", ("-fast-data-channels",)),
    GucOption("stripe", "-stripe", "flag",
              "Striped transfer on servers that support it (guc -stripe).", ("-striped",)),
    GucOption("sync", "-sync", "flag",
              "Only transfer files whose destination is missing or differs (guc -sync).", ()),
    GucOption("sync_level", "-sync-level", "level",
              "How -sync compares files: 0 exists, 1 size, 2 size and date (guc default), 3 checksum "
              "(guc -sync-level).", ()),
)

OPTIONS_BY_NAME = {o.name: o for o in GUC_OPTIONS}
OPTIONS_BY_FLAG = {flag: o for o in GUC_OPTIONS for flag in (o.flag, *o.aliases)}
