"""An auto-tune's ranking for people: the final table and the pick as tgftp prints it. Pure."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gftpwb.core.events import TuneUpdate
from gftpwb.core.format import certainty_text, estimate_text, p_text, rate_text, short_error
from gftpwb.core.records import ResultRecord
from gftpwb.core.registry import ReportTable, registry
from gftpwb.core.units import format_rate

from .candidates import GUC
from .ranking import RACE_LEGEND, tie_note

MIB_NOTE = "MB and MiB both mean 2^20 bytes here, as in guc and tgftp."


def ranking_table(event: TuneUpdate) -> ReportTable:
    """The final ranking: best first; the pick bold green, dropped and failed candidates dim."""
    label = registry().engine_label(event.engine)
    engine = f" {label}" if label else ""
    title = (f"{event.test_id}:{engine} auto-tune ranking ({event.strategy}, {event.transfers_used} of "
             f"{event.budget} transfers, rates in MiB/s incl. set-up)")
    columns = (("rank", "right"), ("config", "left"), (MEAN_CI, "right"), ("runs", "right"),
               ("failures", "right"), ("note", "left"))
    rows = []
    for row in event.rows:
        marks = [tie_note(event.margin_mib_s)] if row.tied_with_leader else []
        if row.note:
            marks.append(row.note)
        style = "bold green" if row.rank == 1 and event.leader == row.candidate else (
            "dim" if row.eliminated or row.mean_mib_s is None else "")
        rows.append(((str(row.rank), row.candidate, estimate_text(row.mean_mib_s, row.ci_low_mib_s, row.ci_high_mib_s),
                      str(row.runs), str(row.failures), "; ".join(marks)), style))
    return ReportTable(title, f"{MIB_NOTE} Means of the runs measured in this tune; {RACE_LEGEND}.", columns,
                       tuple(rows))


def stop_text(stop_reason: str, transfers_used: int) -> str:
    """Why a tune stopped, for people: the strategy's reason, or that it ran its whole plan."""
    return stop_reason or f"every candidate ran as planned ({transfers_used} transfers)"


def verdict_line(test_id: str, margin_mib_s: float, p_within_margin: float | None, stop_reason: str,
                 transfers_used: int, p_with_history: float | None = None, history_share: str = "") -> str:
    """``exh: P(pick within 20 MB/s of the best) = 0.97; stopped: ...``: how sure the pick is, and why the
    tune ended."""
    sure = certainty_text(p_within_margin, p_with_history, history_share)
    relation = "" if sure[0] in "<>" else "= "  # "P(...) > 0.99", "P(...) = 0.97"
    return (f"{test_id}: P(pick within {format_rate(margin_mib_s)} of the best) {relation}{sure}; "
            f"stopped: {stop_text(stop_reason, transfers_used)}")


def pick_lines(event: TuneUpdate) -> list[tuple[str, str]]:
    """What follows the ranking: the pick as tgftp -a prints it, or why there is none; (text, style)."""
    if event.leader is None:
        start = [(f"{event.test_id}: {event.warm_start}", "")] if event.warm_start else []
        return [*start, (f"{event.test_id}: no pick: no candidate reached the tie margin ({event.margin_mib_s:g} "
                         f"MB/s); stopped: {stop_text(event.stop_reason, event.transfers_used)}", "red")]
    label = registry().engine_label(event.engine)
    engine = f" {label}" if label else ""
    verdict = verdict_line(event.test_id, event.margin_mib_s, event.p_within_margin, event.stop_reason,
                           event.transfers_used, event.p_with_history, event.history_share)
    start = [(f"{event.test_id}: {event.warm_start}", "yellow" if event.warm_start.startswith("fell back") else "")] \
        if event.warm_start else []
    tgftp = " (as tgftp -a prints them)" if event.transfers == GUC else ""
    return [*start, (verdict, ""), (f"{event.test_id}:{engine} best {event.transfers} parameters{tgftp}:", ""),
            (event.leader, "")]


AUTOTUNE_KIND = "autotune"


def _pick_row(details: dict[str, Any]) -> dict[str, Any]:
    pick = details.get("pick") or {}
    return next((row for row in details.get("ranking") or [] if row.get("candidate") == pick.get("params")), {})


def tune_facts(record: ResultRecord) -> dict[str, str | float | int | bool | None]:
    """What a report says of a tune besides its ranking: the pick, how sure it is, and why it stopped."""
    d = record.details
    pick = d.get("pick") or {}
    return {"strategy": d.get("strategy"), "pick": pick.get("params"), "pick_mean_mib_s": pick.get("mean_mib_s"),
            "p_within_margin": d.get("p_within_margin"), "p_with_history": d.get("p_with_history"),
            "history_share": d.get("history_share") or None, "margin_mib_s": d.get("margin_mib_s"),
            "transfers_used": d.get("transfers_used"), "budget": d.get("budget"),
            "stop_reason": stop_text(d.get("stop_reason") or "", d.get("transfers_used") or 0) if d else None,
            # None, not the table's "-", where the tune had no warm start to say anything about
            "start": start_text(d["warm_start"]) if d.get("warm_start") else None,
            "warm_start": (d.get("warm_start") or {}).get("text")}


def start_text(warm: dict[str, Any] | None) -> str:
    """How a tune started, in a word or three: warm (from how many campaigns), fell back, or cold."""
    if not warm:
        return "-"
    if warm.get("fell_back"):
        return f"fell back to cold after {warm.get('fell_back_after')}"
    if warm.get("warm"):
        return f"warm ({len(warm.get('used') or [])} campaigns)"
    return "cold"


def tables(records: Sequence[ResultRecord]) -> list[ReportTable]:
    """One row per auto-tune: its pick with mean ± 95 % CI, P(pick within margin), and why it stopped."""
    rows = []
    for record in records:
        if record.kind != AUTOTUNE_KIND:
            continue  # its transfers: the ranking speaks for them
        d = record.details
        row = _pick_row(d)
        facts = tune_facts(record)
        stopped = facts["stop_reason"] if record.status == "passed" else short_error(record.error)
        cells = [record.test_id, str(d.get("strategy", "-")), str(facts["pick"] or "-"),
                 estimate_text(facts["pick_mean_mib_s"], row.get("ci_low_mib_s"), row.get("ci_high_mib_s")),  # type: ignore[arg-type]
                 str(row.get("runs", "-")), certainty_text(d.get("p_within_margin"), d.get("p_with_history"),
                                                           short=True),
                 f"{d.get('transfers_used', '-')}/{d.get('budget', '-')}", str(stopped or "-")]
        rows.append((cells, "" if record.status == "passed" else "red", facts["start"] or "-"))
    if not rows:
        return []
    columns = [("test", "left"), ("strategy", "left"), ("pick", "left"), (MEAN_CI, "right"),
               ("runs", "right"), ("P(within margin)", "right"), ("transfers", "right"), ("stopped", "left")]
    note = ("P(within margin): estimated probability that the pick is within the tie margin of the best candidate, "
            "from the runs this tune measured (a warm start also gives it with the history, and the history's share "
            f"of the pick). The pick's mean: {RACE_LEGEND}.")
    # A start column only when a tune had a say from the history (tunes from before warm starts have none).
    if any(start != "-" for _, _, start in rows):
        columns.insert(7, ("start", "left"))
        rows = [([*cells[:7], start, *cells[7:]], style, start) for cells, style, start in rows]
        note += " Start: warm from earlier campaigns of a similar path, cold, or fell back to cold."
    out = [ReportTable("Auto-tunes (rates in MiB/s incl. set-up)", note, tuple(columns),
                       tuple((tuple(cells), style) for cells, style, _ in rows))]
    same = same_path_table(records)
    return [*out, same] if same is not None else out


MEAN_CI = "mean [95 % CI]"


def path_key(details: dict[str, Any]) -> tuple[Any, ...] | None:
    """What makes two tunes tunes of one path, for reconciling their picks: the path's ends, the
    transfer and engine, the bytes moved, the buffer cap and the tie margin (its RTT, measured anew
    each time, aside); None for a tune without a recorded path."""
    path = details.get("path")
    if not isinstance(path, dict):
        return None
    return (*(path.get(k) for k in ("transfer_kind", "engine", "source", "target", "length", "data", "buffer_cap")),
            details.get("margin_mib_s"))


def same_path_table(records: Sequence[ResultRecord]) -> ReportTable | None:
    """Tunes of one path that picked different candidates, reconciled: within the margin of each other,
    a tie (either pick is as good as the margin can tell); further apart, a disagreement their P values
    cannot both hold. None when no two tunes of one path picked differently."""
    groups: dict[tuple[Any, ...], list[ResultRecord]] = {}
    for record in records:
        key = path_key(record.details) if record.kind == AUTOTUNE_KIND and record.status == "passed" else None
        if key is not None and (record.details.get("pick") or {}).get("params"):
            groups.setdefault(key, []).append(record)
    rows = []
    for key, tunes in groups.items():
        margin = float(key[-1] or 0.0)
        for i, a in enumerate(tunes):
            for b in tunes[i + 1:]:
                pa, pb = a.details["pick"], b.details["pick"]
                if pa.get("params") == pb.get("params"):
                    continue
                ma, mb = pa.get("mean_mib_s"), pb.get("mean_mib_s")
                apart = abs(ma - mb) if ma is not None and mb is not None else None
                if apart is not None and apart < margin:
                    verdict = (f"a tie: within {format_rate(margin)} of each other, as both picks within the margin "
                               "of the best would be")
                    style = ""
                else:
                    verdict = (f"they disagree: further apart than {format_rate(margin)}, so both picks cannot be "
                               "within the margin of the best; tune again with more transfers")
                    style = "yellow"
                sure = f"{p_text(a.details.get('p_within_margin'))} | {p_text(b.details.get('p_within_margin'))}"
                rows.append(((f"{a.test_id}, {b.test_id}", f"{pa.get('params')} | {pb.get('params')}",
                              f"{rate_text(ma)} | {rate_text(mb)}", rate_text(apart), sure, verdict), style))
    if not rows:
        return None
    columns = (("tunes", "left"), ("picks", "left"), ("means", "right"), ("apart", "right"),
               ("P(within margin)", "right"), ("reconciled", "left"))
    return ReportTable("Auto-tunes of the same path that picked differently (MiB/s)",
                       "Tunes of one path: the same ends, transfers, engine, bytes, buffer cap and margin.", columns,
                       tuple(rows))
