"""The journal: records round-trip, a torn last line is skipped, appends are durable."""

import json

from hypothesis import given
from hypothesis import strategies as st

from gftpwb.core.records import ResultRecord, bound_output, latest_by_run, parse_journal
from gftpwb.shell.sinks.journal import JournalSink, read_journal


def record(run_id: str = "a/0", status: str = "passed", **kw) -> ResultRecord:
    base = dict(scenario="s", test_id="a", run_id=run_id, case=0, repeat=0, kind="guc", host="local",
                argv=["globus-url-copy", "-vb", "x", "y"], status=status)
    base.update(kw)
    return ResultRecord(**base)


texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40)


@given(texts, texts, st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False)),
       st.one_of(st.none(), st.integers(min_value=0, max_value=2**63)))
def test_record_json_round_trip(error, output, rate, nbytes):
    r = record(error=error, output=output, rate_incl_setup_mib_s=rate, bytes=nbytes)
    assert ResultRecord.from_dict(json.loads(r.to_json())) == r


def test_unknown_keys_from_newer_versions_are_kept_in_details():
    data = json.loads(record().to_json()) | {"future_field": 3}
    assert ResultRecord.from_dict(data).details == {"future_field": 3}


def test_torn_last_line_is_skipped_with_a_note():
    text = record("a/0").to_json() + "\n" + record("a/1").to_json()[:30]
    records, problems = parse_journal(text)
    assert [r.run_id for r in records] == ["a/0"]
    assert problems == ["line 2: torn last record skipped (an interrupted write)"]


def test_bad_middle_line_does_not_lose_the_rest():
    text = "\n".join([record("a/0").to_json(), "{not json", record("a/1").to_json()]) + "\n"
    records, problems = parse_journal(text)
    assert [r.run_id for r in records] == ["a/0", "a/1"] and problems[0].startswith("line 2: unreadable")


def test_latest_record_per_run_wins():
    old, new = record("a/0", "interrupted"), record("a/0", "passed")
    assert latest_by_run([old, new]) == {"a/0": new}


def test_journal_appends_and_heals_a_torn_tail(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_text(record("a/0").to_json() + "\n" + '{"torn": ')
    sink = JournalSink(str(path))
    sink.append(record("a/1"))
    sink.close()
    records, problems = read_journal(str(path))
    assert [r.run_id for r in records] == ["a/0", "a/1"]
    assert len(problems) == 1 and "unreadable" in problems[0]


def test_output_is_bounded_head_and_tail():
    text = "A" * 50_000 + "B" * 50_000
    bounded = bound_output(text, limit=1000)
    assert bounded.startswith("A" * 500) and bounded.endswith("B" * 500)
    assert "99000 characters elided" in bounded
