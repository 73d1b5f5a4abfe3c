"""The validator holds scenarios to the seed, to the user's rules and to their goal, and refuses
a drafted case (`ops-eval distill`, or a session added in ADK's dev UI) until it is reviewed."""

from __future__ import annotations

import json

import pytest

from ops_eval.cli import main
from ops_eval.core.evalset import read_evalset
from ops_eval.models.stand_ins import OracleLlm, fixed_model
from ops_eval.running.execute import execute
from ops_eval.running.options import RunOptions

SET = "scenarios.evalset.json"


def test_the_scenario_set_validates_and_adk_reads_it(capsys):
    from google.adk.evaluation.eval_set import EvalSet

    from support import REPO

    assert main(["validate", str(REPO / "evals" / SET)]) == 0
    parsed = EvalSet.model_validate_json((REPO / "evals" / SET).read_text())
    assert len(parsed.eval_cases) >= 10
    assert all(c.conversation is None and c.conversation_scenario for c in parsed.eval_cases)
    personas = {c.conversation_scenario.user_persona.id for c in parsed.eval_cases
                if c.conversation_scenario.user_persona}  # fmt: skip
    assert personas == {"NOVICE", "EXPERT", "EVALUATOR"}  # ADK's pre-built ones, by id


def change(evals, case_id, edit):
    path = evals / SET
    data = json.loads(path.read_text())
    case = next(c for c in data["eval_cases"] if c["eval_id"] == case_id)
    edit(case)
    path.write_text(json.dumps(data, indent=1))
    return path


def problems(path, capsys) -> list[str]:
    assert main(["validate", str(path)]) == 1
    return capsys.readouterr().out.strip().splitlines()


def _reference_says_other(case):
    case["meta"]["scenario"]["reference"][1]["user"] = "Search is slow."


def _rule_names_no_service(case):
    case["meta"]["scenario"]["user"].insert(
        0, {"approval": "restart_service", "args": {"name": "billing"}, "deny": True}
    )


def _goal_write_not_reached(case):
    case["meta"]["scenario"]["goal"]["writes"] = [
        {
            "tool": "restart_service",
            "args": {"name": "checkout"},
            "approver": "oncall",
            "rationale": "Because it is needed.",
        }  # fmt: skip
    ]


def _rationale_the_tools_refuse(case):
    case["meta"]["scenario"]["goal"]["writes"][0]["rationale"] = "Because."


def _goal_write_without_its_target(case):
    del case["meta"]["scenario"]["goal"]["writes"][0]["args"]["name"]


def _claim_not_made(case):
    case["meta"]["scenario"]["goal"]["claims"] = ["The search service is down."]


def _no_scenario_meta(case):
    del case["meta"]["scenario"]


@pytest.mark.parametrize(
    ("case_id", "edit", "expected"),
    [
        (
            "scn-vague-orders-failing",
            _reference_says_other,
            "case scn-vague-orders-failing, turn 1, meta.scenario.reference: the user would say "
            "'Placing orders fails at the last step.' (rule asks /which|what/); the reference "
            "has 'Search is slow.'",
        ),
        (
            "scn-restart-withdrawn",
            _rule_names_no_service,
            "meta.scenario.user[0].approval: 'billing' is not a service in the seed",
        ),
        (
            "scn-vague-login-slow",
            _goal_write_not_reached,
            "meta.scenario.goal.writes: the reference's writes that go through (none) are not "
            "the goal's writes",
        ),
        (
            "scn-restart-after-risk",
            _rationale_the_tools_refuse,
            "meta.scenario.goal.writes[0].rationale: needs at least 10 visible characters, has 8",
        ),
        (
            "scn-wrong-service-corrected",
            _goal_write_without_its_target,
            "meta.scenario.goal.writes[0]: required argument 'name' is missing",
        ),
        (
            "scn-incident-id-when-asked",
            _claim_not_made,
            "meta.scenario.goal.claims[0]: no answer of the reference makes the claim 'The "
            "search service is down.'",
        ),
        (
            "scn-pasted-attack",
            _no_scenario_meta,
            "meta.scenario: a conversation scenario needs its user rules, goal and reference",
        ),
    ],
)
def test_a_scenario_that_disagrees_is_refused_by_name(evals, capsys, case_id, edit, expected):
    lines = problems(change(evals, case_id, edit), capsys)
    assert any(expected in line for line in lines), lines


def _draft(evals, tmp_path, capsys, set_name: str, case_id: str):
    cases = read_evalset(evals / set_name).cases
    record = tmp_path / f"{case_id}.json"
    code, _, _ = execute(
        RunOptions(set_path=evals / set_name, cases=[case_id], output=record),
        chooser=fixed_model(OracleLlm.from_cases(cases), "oracle", "scripted"),
    )
    assert code == 0
    drafts = evals / "drafts.evalset.json"
    assert main(["distill", str(record), f"{case_id}#1", "--output", str(drafts)]) == 0
    capsys.readouterr()
    return drafts


# Played as a scripted case, the case's approval answers every pause: the restart that turn 1 of
# scn-restart-after-risk left waiting (its user asked about the risk instead) is made there, so
# turn 2's "Inventory is already down" is no longer true -- the reviewer rewrites it, or validate
# refuses it (`reference_rules`).
AFTER_RESTART = {1: "Inventory is operational again, so a second restart drops no live traffic."}


@pytest.mark.parametrize(
    ("set_name", "case_id", "pause_turns", "rewrites"),
    [
        ("ops.evalset.json", "approve-restart-inventory", [], {}),
        ("scenarios.evalset.json", "scn-restart-after-risk", [0], AFTER_RESTART),
    ],  # fmt: skip
)
def test_a_distilled_case_is_refused_until_its_expectations_are_set(
    evals, tmp_path, capsys, set_name, case_id, pause_turns, rewrites
):
    drafts = _draft(evals, tmp_path, capsys, set_name, case_id)
    lines = problems(drafts, capsys)
    draft_id = f"{case_id}-draft-r1"
    assert any(f"case {draft_id}, meta.draft: is a draft from run" in line for line in lines)
    data = json.loads(drafts.read_text())
    (case,) = data["eval_cases"]
    for i in pause_turns:  # a turn that ended at a pause has no reference: a person writes one
        assert case["conversation"][i]["final_response"]["parts"][0]["text"] == ""
        case["conversation"][i]["final_response"]["parts"][0]["text"] = (
            "Restarting inventory needs your approval first."
        )
    for i, text in rewrites.items():
        case["conversation"][i]["final_response"]["parts"][0]["text"] = text
    del case["meta"]["draft"]  # reviewed
    drafts.write_text(json.dumps(data, indent=1))
    assert main(["cases", "lock", str(drafts)]) == 0  # the reviewed case pinned as version 1
    assert main(["validate", str(drafts)]) == 0, capsys.readouterr().out


def test_a_case_added_from_a_dev_ui_session_is_refused_until_it_has_expectations(evals, capsys):
    path = evals / "ui.evalset.json"
    session_case = json.loads((evals / "ops.evalset.json").read_text())["eval_cases"][0]
    del session_case["meta"]  # what ADK's "add session to eval set" writes: no meta
    path.write_text(json.dumps({"eval_set_id": "ui", "eval_cases": [session_case]}))
    (line,) = [x for x in problems(path, capsys) if "meta:" in x]
    assert "a case added from a session in ADK's dev UI holds what the agent did" in line


def test_distill_refuses_what_it_cannot_do_and_writes_nothing(evals, tmp_path, capsys):
    drafts = _draft(evals, tmp_path, capsys, "ops.evalset.json", "approve-restart-inventory")
    before = drafts.read_text()
    record = next(tmp_path.glob("approve-restart-inventory.json"))
    assert main(["distill", str(record), "approve-restart-inventory", "--output", str(drafts)]) == 2
    assert "already has a case approve-restart-inventory-draft-r1" in capsys.readouterr().err
    assert main(["distill", str(record), "approve-restart-inventory#4"]) == 2
    assert "has repeats 1 of approve-restart-inventory" in capsys.readouterr().err
    assert main(["distill", str(record), "nope"]) == 2
    assert drafts.read_text() == before


def test_the_dev_ui_lists_the_scenario_set_beside_the_agent():
    from google.adk.evaluation.local_eval_sets_manager import LocalEvalSetsManager

    from support import REPO

    manager = LocalEvalSetsManager(agents_dir=str(REPO / "agents"))
    assert "scenarios" in manager.list_eval_sets("ops_copilot")
    loaded = manager.get_eval_set("ops_copilot", "scenarios")
    assert loaded is not None and loaded.eval_set_id == "scenarios"
    assert all(c.conversation_scenario is not None for c in loaded.eval_cases)
