"""The ``connection-test`` kind: tgftp's connection test, one byte moved with the whole control-channel
conversation logged (registered as entry point ``gftpwb.kinds: connection-test``). This module is its
manifest; its language and planning (:mod:`.facets`) are imported when a scenario has a connection test."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gftpwb.core.registry import ImportedDsl, ImportedPlanner, Kind, Present, Report, Run
from gftpwb.kinds.guc.kind import GUC_WAITING, TRANSFERS

if TYPE_CHECKING:
    from gftpwb.core.records import ResultRecord
    from gftpwb.core.specs import RunSpec


class ConnectionTestPresent(Present):
    def waiting(self, spec: RunSpec) -> str:
        return GUC_WAITING

    def headline(self, record: ResultRecord) -> str:
        took = f" in {record.seconds:.3f}s" if record.seconds is not None else ""  # an imported log may lack times
        return f"connection ok (connect, login, data channel){took}"

    def params_text(self, params: dict[str, Any]) -> str:
        from gftpwb.kinds.guc.report import params_text

        return params_text(params)


KIND = Kind(
    name="connection-test",
    description=("tgftp's connection test: guc -dbg -vb -len 1 moves one byte with the full control-channel "
                 "conversation logged, and the record says which step failed (connect, login, data channel). "
                 "Default timeout 30s."),
    order=20,
    dsl=ImportedDsl("gftpwb.kinds.connection_test.facets:ConnectionTestDsl"),
    planner=ImportedPlanner("gftpwb.kinds.connection_test.facets:ConnectionTestPlanner"),
    run=Run("gftpwb.kinds.connection_test.run.runner:run",
            trace_phases="gftpwb.kinds.guc.phases:phase_reader",  # its -dbg conversation is a guc one
            writes_taglog=True),
    report=Report(TRANSFERS),  # tabulated with the guc runs
    present=ConnectionTestPresent(),
    exports={"tgftp-batchfile": "gftpwb.kinds.connection_test.facets:tgftp_batchfile_line"},
)
