"""ADK's spans kept beside a run record (`ops_eval.spans`): one entry per trial holding exactly
that trial's spans, even with trials played at once, and a spans file that does not read is
refused with its line."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from conftest import REPO
from ops_eval import RunOptions, execute, load_record, read_evalset
from ops_eval.spans import SpansError, read_spans, spans_path
from ops_eval.testing import OracleLlm, fixed_model

OPS = REPO / "evals" / "ops.evalset.json"
CASES = ["restart-needs-approval", "incident-detail-inc-002", "list-skills", "open-incidents"]


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("spans")
    oracle = OracleLlm.from_cases(read_evalset(OPS).cases)
    options = RunOptions(cases=CASES, repeats=2, concurrency=4, output=folder / "run.json")
    code, _, path = execute(
        options, chooser=fixed_model(oracle, "oracle", "test"), out=io.StringIO(), err=io.StringIO()
    )
    assert code == 0
    return path


def test_each_trial_holds_its_own_spans_when_played_at_once(run):
    record = load_record(run)
    kept = read_spans(spans_path(run), record.run_id)
    assert set(kept) == {(t.case_id, t.repeat) for t in record.trials}
    for trial in record.trials:
        spans = kept[(trial.case_id, trial.repeat)]
        tools = {s.name for s in spans if s.name.startswith("execute_tool ")}
        assert tools == {f"execute_tool {c.name}" for t in trial.turns for c in t.calls}
        ids = {s.span_id for s in spans}
        roots = [s for s in spans if s.parent_id not in ids]
        assert roots and all(s.name.startswith("invoke_workflow") for s in roots)
        assert all(s.start_ns <= s.end_ns for s in spans)


def test_a_spans_file_that_does_not_read_is_refused_with_its_line(run, tmp_path):
    record = load_record(run)
    broken = tmp_path / "broken.spans.jsonl"
    lines = spans_path(run).read_text().splitlines()
    broken.write_text("\n".join([lines[0], lines[1], '{"case_id": 1}']) + "\n")
    with pytest.raises(SpansError, match="line 3"):
        read_spans(broken, record.run_id)
    with pytest.raises(SpansError, match="not of"):
        read_spans(spans_path(run), "another-run")
    with pytest.raises(SpansError):
        read_spans(tmp_path / "missing.spans.jsonl", record.run_id)
    (tmp_path / "x.spans.jsonl").write_text("not json\n")
    with pytest.raises(SpansError, match="line 1"):
        read_spans(tmp_path / "x.spans.jsonl", record.run_id)
