"""Fuzz the run-record reader with mutations of a real record: whatever the file holds,
`load_record` returns a record or raises RecordError (which `ops-eval report` shows as one line,
exit 2) -- never anything else. A record that loads must also be reportable: the report
command's Markdown and HTML writers and the terminal summary render it without raising, so
every check a report relies on is made when the record is read, not halfway through a report.

The record is made once, by a real run of three cases (a read, an approval, a memory case) with
the oracle model; the mutations are the eval-set fuzz's (`test_fuzz_evalset.py`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import event, given
from hypothesis import strategies as st
from test_fuzz_evalset import mutated, serialised

from support import REPO

CASES = ["open-incidents", "restart-needs-approval", "memory-note-then-recall"]


@pytest.fixture(scope="module")
def real_record(tmp_path_factory) -> tuple[Path, Any]:
    """(a folder to write into, the JSON of a record a real run wrote)."""
    from ops_eval import RunOptions, execute, read_evalset
    from ops_eval.models.stand_ins import OracleLlm, fixed_model

    folder = tmp_path_factory.mktemp("records")
    cases = read_evalset(REPO / "evals" / "ops.evalset.json").cases
    chooser = fixed_model(OracleLlm.from_cases(cases), "oracle", "scripted")
    code, _, path = execute(RunOptions(output=folder / "run.json", cases=CASES), chooser=chooser)
    assert code == 0
    return folder, json.loads(path.read_text())


@given(data=st.data())
def test_any_mutation_of_a_real_record_is_reported_or_is_a_record_error(real_record, data):
    from ops_eval.base.exits import EXIT_BAD_INPUT, OpsEvalError
    from ops_eval.mutation import mutation_line
    from ops_eval.outputs.report import summary_lines
    from ops_eval.outputs.report.written import write_reports
    from ops_eval.results.records import RecordError, RunRecord, load_record

    folder, original = real_record
    target = folder / "mutated.json"
    target.write_bytes(data.draw(serialised(mutated(original)), label="file"))
    md, page = folder / "out.md", folder / "out.html"
    md.unlink(missing_ok=True)
    page.unlink(missing_ok=True)
    try:
        record = load_record(target)
    except RecordError as exc:
        assert "\n" not in str(exc)
        event(f"RecordError: {str(exc).split(' (')[0][:40]}")
        try:
            write_reports(str(target), str(md), str(page), mutation_line)
        except OpsEvalError as refused:  # what `ops-eval report` shows, exit 2
            assert refused.code == EXIT_BAD_INPUT and "\n" not in str(refused)
        else:
            raise AssertionError("a record load_record refuses was reported")
        assert not md.exists() and not page.exists()
    else:
        assert isinstance(record, RunRecord)
        reported, _, _ = write_reports(str(target), str(md), str(page), mutation_line)
        assert reported == record and md.stat().st_size > 0 and page.stat().st_size > 0
        assert summary_lines(record)
        event("read and reported")
