"""The validator's policy-contract rules: one broken contract of each kind (forbidden tool,
forbidden argument, budget, forbidden expected call, write before read, calls over budget --
per case and per set) is rejected with a line naming case, turn, tool and argument."""

from __future__ import annotations

from pathlib import Path

from validate_cli import case, mutate_ops, validate


def contracts(eval_id: str, **declared):
    """A mutation adding these contracts to a case of the ops set."""

    def change(data: dict) -> None:
        case(data, eval_id)["meta"].setdefault("contracts", {}).update(declared)

    return change


def set_policy(evals: Path, text: str) -> None:
    (evals / "contracts.yaml").write_text(text)


def test_a_forbidden_tool_must_exist(evals, capsys):
    mutate_ops(evals, contracts("list-skills", forbidden=[{"tool": "reboot_everything"}]))
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert out == [
        "evals/ops.evalset.json: case list-skills, contracts.forbidden[0].tool: forbids "
        "'reboot_everything', which is not a tool of agent ops_copilot"
    ]


def test_a_forbidden_argument_must_be_declared(evals, capsys):
    rule = {"tool": "resolve_incident", "args": {"incident": "INC-002"}}
    mutate_ops(evals, contracts("list-skills", forbidden=[rule]))
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert out == [
        "evals/ops.evalset.json: case list-skills, contracts.forbidden[0].args.incident: forbids "
        "resolve_incident with argument 'incident', which resolve_incident does not declare"
    ]


def test_a_budget_must_be_positive(evals, capsys):
    mutate_ops(evals, contracts("list-skills", budget={"tool_calls": 0}))
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert any(
        "case list-skills" in line
        and "contracts.budget.tool_calls" in line
        and "greater than 0" in line
        for line in out
    ), out


def test_an_expected_call_must_not_be_forbidden(evals, capsys):
    rule = {"tool": "get_incident", "args": {"incident_id": "inc 002"}}  # normalised: INC-002
    mutate_ops(evals, contracts("incident-detail-inc-002", forbidden=[rule]))
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert out == [
        "evals/ops.evalset.json: case incident-detail-inc-002, turn 1, call 1 "
        "contracts.forbidden[0]: the case expects get_incident(incident_id=INC-002), which "
        "get_incident(incident_id=inc 002) forbids"
    ]


def test_an_expected_write_must_follow_its_read(evals, capsys):
    mutate_ops(evals, contracts("restart-needs-approval", order=["read_before_write"]))
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert out == [
        "evals/ops.evalset.json: case restart-needs-approval, turn 1, call 1 contracts.order: "
        "read_before_write: the case expects restart_service(name=inventory) before any read "
        "of service inventory"
    ]


def test_expected_calls_must_fit_the_tool_call_budget(evals, capsys):
    mutate_ops(evals, contracts("recommend-fix-inc-002", budget={"tool_calls": 2}))
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert out == [
        "evals/ops.evalset.json: case recommend-fix-inc-002, turn 1, "
        "contracts.budget.tool_calls: the case expects 3 tool calls (get_incident, "
        "search_service_logs, get_runbook), over the tool-call budget 2"
    ]


def test_set_rules_hold_against_every_case(evals, capsys):
    set_policy(evals, "forbidden:\n  - tool: restart_service\n    args: {name: database}\n")
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert out == [
        "evals/ops.evalset.json: case deny-restart-database, turn 1, call 1 "
        "contracts.yaml forbidden[0]: the case expects restart_service(name=database), which "
        "restart_service(name=database) forbids",
        # a scenario's reference is held to the set's rules like any case's expected calls
        "evals/scenarios.evalset.json: case scn-deny-database-restart, turn 1, call 2 "
        "contracts.yaml forbidden[0]: the case expects restart_service(name=database), which "
        "restart_service(name=database) forbids",
    ]


def test_set_rules_name_tools_and_arguments_of_some_agent(evals, capsys):
    set_policy(evals, "forbidden:\n  - tool: nuke\n  - tool: get_incident\n    args: {id: x}\n")
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert out == [
        "evals/contracts.yaml: forbidden[0].tool: forbids 'nuke', which is not a tool of any agent",
        "evals/contracts.yaml: forbidden[1].args.id: forbids get_incident with argument 'id', "
        "which get_incident does not declare",
    ]


def test_a_set_order_rule_is_reported_under_the_set_file(evals, capsys):
    set_policy(evals, "order: [read_before_write]\n")
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert (
        "evals/ops.evalset.json: case restart-needs-approval, turn 1, call 1 contracts.yaml "
        "order: read_before_write: the case expects restart_service(name=inventory) before any "
        "read of service inventory"
    ) in out, out


def test_a_forbidden_argument_must_name_a_seed_entity(evals, capsys):
    rule = {"tool": "resolve_incident", "args": {"incident_id": "INC-0002"}}
    mutate_ops(evals, contracts("list-skills", forbidden=[rule]))
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert out == [
        "evals/ops.evalset.json: case list-skills, contracts.forbidden[0].args.incident_id: "
        "forbids resolve_incident with incident_id 'INC-0002' is not an incident in the seed "
        "(did you mean 'INC-002'?); declare it in negatives.yaml if it is a deliberate negative: "
        "the rule can never apply"
    ]


def test_a_set_forbidden_argument_must_name_a_seed_entity(evals, capsys):
    set_policy(evals, "forbidden:\n  - tool: restart_service\n    args: {name: databse}\n")
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert len(out) == 1 and out[0].startswith(
        "evals/contracts.yaml: forbidden[0].args.name: forbids restart_service with name "
        "'databse' is not a service in the seed"
    ), out


def test_a_forbidden_declared_negative_is_accepted(evals, capsys):
    set_policy(evals, "forbidden:\n  - tool: restart_service\n    args: {name: warehouse}\n")
    code, out, _ = validate(capsys, str(evals))
    assert code == 0, out
