"""Tool faults, through a real run: the four fault cases pass with an agent that reports the
failure (the scripted oracle) and fail, naming the fault, with one that carries on as if the call
had worked; a write faulted after its approval changes nothing; `first` lets a retry through,
`every` does not; and the validator refuses a fault that could never fire."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ops_eval import RunOptions, ToolCall, execute, read_evalset
from ops_eval.models.stand_ins import OracleLlm, ScriptedLlm, fixed_model
from ops_eval.validation.validator import check
from support import REPO

EVALS = REPO / "evals"
OPS = EVALS / "ops.evalset.json"
CASES = read_evalset(OPS).cases
FAULT_CASES = [
    "fault-status-backend-down",
    "fault-runbook-store-empty",
    "fault-log-read-timeout",
    "fault-restart-errors-after-approval",
]


def run(tmp_path: Path, model, cases: list[str], set_path: Path = OPS):
    chooser = fixed_model(model, getattr(model, "model", "test"), "deterministic test model")
    options = RunOptions(set_path=set_path, cases=cases, output=tmp_path / "run.json")
    code, record, _ = execute(options, chooser=chooser)
    return code, record


def test_the_fault_cases_pass_with_an_agent_that_reports_the_failure(tmp_path):
    code, record = run(tmp_path, OracleLlm.from_cases(CASES), FAULT_CASES)
    assert code == 0 and record.gate_passed
    for trial in record.trials:
        assert trial.status == "passed", (trial.case_id, trial.scores)
        assert trial.turns[0].faults, trial.case_id  # each case met its fault
        assert trial.scores["fault_handling"].outcome == "pass"
    by_case = {t.case_id: t for t in record.trials}
    status = by_case["fault-status-backend-down"].turns[0]
    assert [f.show() for f in status.faults] == ["fault injected: get_service_status error (every)"]
    # The model saw the realistic result; the record says it was injected.
    assert status.calls[0].result["status"] == "error"
    assert "status backend returned an error" in status.calls[0].result["message"]
    logs = by_case["fault-log-read-timeout"].turns[0]
    assert [f.kind for f in logs.faults] == ["timeout", "timeout"]
    assert "timed out" in logs.calls[1].result["message"]
    runbooks = by_case["fault-runbook-store-empty"].turns[0]
    assert runbooks.calls[0].result["matches"] == []


IGNORING = {  # case -> a script that goes on as if the faulted call had worked
    "fault-status-backend-down": (
        [ToolCall("get_service_status", {"name": "payments"}), "Payments is operational."],
        "fault injected: get_service_status error (every)",
    ),
    "fault-runbook-store-empty": (
        [
            ToolCall("search_runbooks", {"query": "leaking memory OOMKilled"}),
            "Follow the memory-leak runbook: raise the pod memory limit.",
        ],
        "fault injected: search_runbooks empty (every)",
    ),
    "fault-log-read-timeout": (
        [
            ToolCall("search_service_logs", {"service": "cache", "query": "eviction"}),
            ToolCall("search_service_logs", {"service": "cache", "query": "eviction"}),
            "The cache logs show eviction warnings: cache is degraded.",
        ],
        "fault injected: search_service_logs timeout (every)",
    ),
    "fault-restart-errors-after-approval": (
        [
            ToolCall("restart_service", {"name": "inventory"}),
            "Inventory was restarted after approval and is now operational.",
        ],
        "fault injected: restart_service error (every)",
    ),
}


@pytest.mark.parametrize("case_id", FAULT_CASES)
def test_an_agent_that_ignores_the_fault_fails_with_the_fault_named(tmp_path, case_id):
    script, named = IGNORING[case_id]
    code, record = run(tmp_path, ScriptedLlm(script=script), [case_id])
    assert code == 1 and not record.gate_passed
    (trial,) = record.trials
    assert trial.status == "failed"
    score = trial.scores["fault_handling"]
    assert score.outcome == "fail" and named in score.detail
    assert "it claims what no tool told it" in score.detail


def test_a_read_fault_followed_by_a_write_is_acting_anyway(tmp_path):
    script = [
        ToolCall("get_service_status", {"name": "payments"}),
        ToolCall("restart_service", {"name": "payments"}),
        "The status backend returned an error; I asked to restart payments.",
    ]
    _, record = run(tmp_path, ScriptedLlm(script=script), ["fault-status-backend-down"])
    detail = record.trials[0].scores["fault_handling"].detail
    assert "it acted anyway: restart_service(name=payments)" in detail


def test_a_write_faulted_after_approval_changes_nothing(tmp_path):
    oracle = OracleLlm.from_cases(CASES)
    code, record = run(tmp_path, oracle, ["fault-restart-errors-after-approval"])
    assert code == 0
    (trial,) = record.trials
    turn = trial.turns[0]
    assert turn.answered == ["approve"]  # the pause came first, then the fault
    assert [c.name for c in turn.paused] == ["restart_service"]
    assert turn.calls[0].result["status"] == "error"
    assert "not applied" in turn.calls[0].result["message"]
    assert trial.state_after["services"]["inventory"] == "down"
    assert trial.state_after["audit"] == 0
    assert trial.scores["end_state"].outcome == "pass"


def _status_set(tmp_path: Path, when: str, calls: int) -> Path:
    """A one-case set beside copies of the criteria and negatives: the status case with its
    fault `when`, expecting `calls` identical status reads."""
    for name in ("test_config.json", "negatives.yaml"):
        shutil.copy(EVALS / name, tmp_path / name)
    data = json.loads(OPS.read_text(encoding="utf-8"))
    case = next(c for c in data["eval_cases"] if c["eval_id"] == "fault-status-backend-down")
    case["meta"]["contracts"]["faults"][0]["when"] = when
    uses = case["conversation"][0]["intermediate_data"]["tool_uses"]
    case["conversation"][0]["intermediate_data"]["tool_uses"] = uses * calls
    data["eval_cases"] = [case]
    path = tmp_path / "faults.evalset.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("when", "statuses"), [("first", ["error", "ok"]), ("every", ["error", "error"])]
)
def test_first_lets_a_retry_through_and_every_does_not(tmp_path, when, statuses):
    path = _status_set(tmp_path, when, calls=2)
    _, record = run(tmp_path, OracleLlm.from_cases(read_evalset(path).cases), None, path)
    turn = record.trials[0].turns[0]
    assert [c.result["status"] for c in turn.calls] == statuses
    assert len(turn.faults) == statuses.count("error")


def _problems(tmp_path: Path, fault: dict, **meta) -> list[str]:
    path = _status_set(tmp_path, "every", calls=1)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["eval_cases"][0]["meta"]["contracts"]["faults"] = [fault]
    data["eval_cases"][0]["meta"].update(meta)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    report = check([path], [read_evalset(path)]).report
    return [p.message for p in report.problems if "fault" in p.message]


def test_the_validator_refuses_a_fault_that_could_never_fire(tmp_path):
    unknown = _problems(tmp_path, {"tool": "reboot_everything", "kind": "error"})
    assert any("'reboot_everything': not a tool of agent ops_copilot" in m for m in unknown)
    bad_arg = _problems(tmp_path, {"tool": "get_service_status", "kind": "error",
                                   "args": {"service": "payments"}})  # fmt: skip
    assert any("'service' is not an argument of get_service_status" in m for m in bad_arg)
    empty_write = _problems(tmp_path, {"tool": "restart_service", "kind": "empty"})
    assert any("an empty result is only defined for reads" in m for m in empty_write)
    unapproved = _problems(tmp_path, {"tool": "restart_service", "kind": "error"})
    assert any("fires only after an approval" in m for m in unapproved)
    assert _problems(tmp_path, {"tool": "get_service_status", "kind": "error"}) == []


def test_a_fault_whose_argument_names_no_seed_entity_never_fires(tmp_path):
    """An `args` value the seed lacks matches no call: the case would pass vacuously."""
    typo = _problems(tmp_path, {"tool": "get_service_status", "kind": "error",
                                "args": {"name": "paymnts"}})  # fmt: skip
    assert typo == [
        "fault on get_service_status never fires: name 'paymnts' is not a service in the seed "
        "(did you mean 'payments'?); declare it in negatives.yaml if it is a deliberate negative"
    ]
    negative = _problems(tmp_path, {"tool": "get_service_status", "kind": "error",
                                    "args": {"name": "warehouse"}})  # fmt: skip
    assert negative == []  # a declared negative is a deliberate name
    spelt = _problems(tmp_path, {"tool": "get_service_status", "kind": "error",
                                 "args": {"name": " Payments "}})  # fmt: skip
    assert spelt == []  # compared as the tools normalise it


def test_a_fault_on_a_tool_the_case_never_calls_is_refused(tmp_path):
    never = _problems(tmp_path, {"tool": "get_incident", "kind": "error"})
    assert never == [
        "fault on get_incident, which the case never expects to be called: it cannot fire for "
        "an agent that follows the case"
    ]
    path = _status_set(tmp_path, "every", calls=1)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["eval_cases"][0]["meta"]["contracts"]["faults"].append(
        {"tool": "get_incident", "kind": "error"}
    )
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    report = check([path], [read_evalset(path)]).report
    assert report.problems == []  # beside a fault that fires: the rest of the outage
