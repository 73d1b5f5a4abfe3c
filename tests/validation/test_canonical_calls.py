"""Calls compared as the tool takes them: an argument spelt with its declared default is the same
call as one that leaves it out -- for `trajectory` (ADK's own evaluator and the matcher path),
`tool_policy`, `partial_credit`, `forbidden_calls`, `fault_handling` and the validator -- a
matcher sees the value the tool gets, and any other value stays a different call. Through a
scripted model (a stand-in, named as such) on the real agent.
"""

from __future__ import annotations

import pytest
from validate_cli import calls, mutate_ops, validate

from ops_copilot.definition import tool_specs
from ops_eval import RunOptions, ToolCall, execute, read_evalset
from ops_eval.core.call_policy import forbids
from ops_eval.core.contracts import Forbidden
from ops_eval.core.matching import canonical
from ops_eval.models.stand_ins import ScriptedLlm, fixed_model
from support import REPO

OPS = REPO / "evals" / "ops.evalset.json"
CASES = {c.eval_id: c for c in read_evalset(OPS).cases}


def played(tmp_path, case: str, call: ToolCall):
    answer = CASES[case].turns[0].reference
    model = ScriptedLlm(script=[call, answer])
    options = RunOptions(cases=[case], output=tmp_path / "run.json")
    _, record, _ = execute(options, chooser=fixed_model(model, "scripted", "a test's script"))
    (trial,) = record.trials
    return trial


def test_an_explicit_null_for_an_optional_argument_is_the_call_the_case_expects(tmp_path):
    """open-incidents has no matchers: `trajectory` is ADK's TrajectoryEvaluator."""
    call = ToolCall("list_incidents", {"service": None, "status": "open"})
    trial = played(tmp_path, "open-incidents", call)
    assert trial.turns[0].calls[0].args == {"service": None, "status": "open"}  # as sent
    assert trial.scores["trajectory"].outcome == "pass", trial.scores["trajectory"].detail
    assert trial.scores["trajectory"].detail == "IN_ORDER, per turn [1.0]"
    assert trial.scores["tool_policy"].outcome == "pass"
    assert trial.scores["partial_credit"].figures["f1"] == 1.0
    assert trial.status == "passed", {n: s.detail for n, s in trial.scores.items()}


def test_another_value_for_it_is_still_another_call(tmp_path):
    call = ToolCall("list_incidents", {"service": "inventory", "status": "open"})
    trial = played(tmp_path, "open-incidents", call)
    assert trial.scores["trajectory"].outcome == "fail"
    assert trial.scores["partial_credit"].figures["f1"] == 0.0


@pytest.mark.parametrize(("limit", "outcome"), [(20, "pass"), (5, "fail")])
def test_a_default_spelt_out_matches_under_the_cases_matchers_too(tmp_path, limit, outcome):
    """diagnose-checkout-with-logs declares matchers: the matcher path. `limit=20` is
    search_service_logs' default; 5 is not."""
    call = ToolCall("search_service_logs", {"service": "checkout", "query": "timeout"})
    spelt = ToolCall(call.name, {**call.args, "limit": limit})
    trial = played(tmp_path, "diagnose-checkout-with-logs", spelt)
    assert trial.scores["trajectory"].outcome == outcome, trial.scores["trajectory"].detail


def test_canonical_reads_a_call_as_its_tool_takes_it():
    specs = tool_specs()

    def taken(name, **args):
        return canonical(ToolCall(name, args), specs).args

    assert (
        taken("list_incidents", service=None, status="open")
        == taken("list_incidents", status="open")
        == {"service": None, "status": "open"}
    )
    # the tool treats "" like None, but "" is not its default: another call
    assert taken("list_incidents", service="", status="open") != taken(
        "list_incidents", status="open"
    )
    assert taken("search_service_logs", service="x", query="y") == {
        "service": "x", "query": "y", "limit": 20
    }  # fmt: skip
    unknown = ToolCall("no_such_tool", {"x": None})
    assert canonical(unknown, specs) is unknown


def test_a_matcher_sees_the_value_the_tool_gets():
    """A matcher that admits the default passes a call that leaves the argument out."""
    from ops_eval.core.contracts import OneOf
    from ops_eval.core.matching import call_matches

    specs = tool_specs()
    matchers = {"search_service_logs": {"limit": OneOf(match="one_of", values=[10, 20])}}
    want = canonical(
        ToolCall("search_service_logs", {"service": "cache", "query": "x", "limit": 10}), specs
    )
    left_out = canonical(ToolCall("search_service_logs", {"service": "cache", "query": "x"}), specs)
    assert call_matches(want, left_out, matchers)
    five = canonical(
        ToolCall("search_service_logs", {"service": "cache", "query": "x", "limit": 5}), specs
    )
    assert not call_matches(want, five, matchers)


def test_a_fault_on_a_call_that_spelt_its_default_is_still_judged(tmp_path):
    """fault-log-read-timeout times out every search of the cache logs; writing after it is
    acting on a failure, whether the search spelt `limit=20` or not."""
    note = ToolCall("save_incident_note", {"incident_id": "INC-002", "note": "cache is fine"})
    for search in (
        ToolCall("search_service_logs", {"service": "cache", "query": "eviction"}),
        ToolCall("search_service_logs", {"service": "cache", "query": "eviction", "limit": 20}),
    ):
        model = ScriptedLlm(script=[search, note, "Done."])
        options = RunOptions(cases=["fault-log-read-timeout"], output=tmp_path / "run.json")
        _, record, _ = execute(options, chooser=fixed_model(model, "scripted", "a test's script"))
        (trial,) = record.trials
        score = trial.scores["fault_handling"]
        assert score.outcome == "fail" and "acted anyway" in score.detail, score.detail


def test_a_forbidden_argument_is_read_as_the_tool_takes_it():
    rule = Forbidden(tool="search_service_logs", args={"limit": 20})
    specs = tool_specs()
    left_out = ToolCall("search_service_logs", {"service": "checkout", "query": "x"})
    assert forbids(rule, left_out, specs)  # the tool takes 20 when it is left out
    assert not forbids(rule, ToolCall(left_out.name, {**left_out.args, "limit": 5}), specs)


def test_the_validator_refuses_a_default_spelt_in_an_expected_call(evals, capsys):
    mutate_ops(evals, lambda d: calls(d, "open-incidents")[0]["args"].update(service=None))
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert out == [
        "evals/ops.evalset.json: case open-incidents, turn 1, call 1 list_incidents.service: "
        "'service' is null, the default list_incidents takes when it is left out: leave it out "
        "(`adk eval` compares whole argument dicts)"
    ]
