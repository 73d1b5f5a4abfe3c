"""A reference answer agrees with the seed (`validation.reference_rules`): a status, severity or
owner the seed does not hold, a "does not exist" about something it has, a runbook or skill it
lacks -- each refused in one line naming the case, the turn, the claim and the seed's value. A
reference about a write the case approves is read against the state after it (a write a fault
fails changes nothing); a scenario's goal claims against the state after its goal's writes. The
shipped sets, their deliberate negatives included, still validate, and a case of an agent with a
seed of its own is left alone.

Each test copies evals/ (the `evals` fixture), rewrites one reference, and runs `ops-eval
validate` through its CLI entry point, asserting the exit code and the exact lines this rule
prints (a rewritten reference may also break the case's own response checks, which say so on
lines of their own)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from validate_cli import case, load, mutate_ops, save, validate

from ops_eval.cli import main

OPS = "evals/ops.evalset.json"
HOLDOUT = "evals/holdout.evalset.json"
SCENARIOS = "evals/scenarios.evalset.json"


def _reference(eval_id: str, text: str, turn: int = 1):
    def change(data: dict) -> None:
        final = case(data, eval_id)["conversation"][turn - 1]["final_response"]
        final["parts"] = [{"text": text}]

    return change


def _refused(capsys, evals: Path) -> tuple[int, list[str]]:
    """The exit code, and the lines this rule printed (those that say what a reference or a
    goal claim says; the other rules' lines left out)."""
    code, out, _ = validate(capsys, str(evals))
    return code, [ln for ln in out if ": reference says " in ln or ": reference names " in ln]


def _where(eval_id: str, file: str = OPS, turn: int = 1) -> str:
    return f"{file}: case {eval_id}, turn {turn}, final_response: "


def test_the_shipped_sets_validate_deliberate_negatives_included(evals, capsys):
    code, out, _ = validate(capsys, str(evals))
    assert code == 0, out
    assert out == ["ok: 4 eval set(s), 47 cases agree with the seed"]


def test_the_issues_example_is_refused_for_its_status_and_its_owner(evals, capsys):
    """The reference of issue 42: every offline check passed it before."""
    wrong = (
        "The inventory service is operational. It is owned by the storefront team and has no "
        "open incidents."
    )
    mutate_ops(evals, _reference("service-status-inventory", wrong))
    code, lines = _refused(capsys, evals)
    assert code == 1
    where = _where("service-status-inventory")
    assert lines == [
        where + "reference says inventory status is operational; the seed says down",
        where + "reference says inventory owner is storefront; the seed says fulfilment",
    ]


def test_an_incident_status_the_seed_does_not_hold_is_refused(evals, capsys):
    mutate_ops(evals, _reference("incident-detail-inc-002", "INC-002 (SEV1) is resolved."))
    code, lines = _refused(capsys, evals)
    assert code == 1
    assert lines == [
        _where("incident-detail-inc-002") + "reference says INC-002 status is resolved; the "
        "seed says open"
    ]


def test_a_severity_the_seed_does_not_hold_is_refused(evals, capsys):
    text = "INC-002 is a SEV3 inventory incident with status open. Runbook: service-down."
    mutate_ops(evals, _reference("incident-detail-inc-002", text))
    code, lines = _refused(capsys, evals)
    assert code == 1
    assert lines == [
        _where("incident-detail-inc-002") + "reference says INC-002 severity is SEV3; the seed "
        "says SEV1"
    ]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("The inventory service is not down any more.", "inventory status is not down; the seed "
         "says down"),
        ("THE API GATEWAY IS DOWN.", "api-gateway status is down; the seed says degraded"),
        ("Inventory is down and checkout is healthy.", "checkout status is operational; the seed "
         "says degraded"),
    ],
)  # fmt: skip
def test_a_status_is_read_as_the_reader_reads_it_denied_any_case_or_reworded(
    evals, capsys, text, said
):
    """Denied ("not down"), in capitals with a space for the hyphen, or in the status lexicon's
    words ("healthy" is operational): read as `facts` reads it, and refused."""
    mutate_ops(evals, _reference("service-status-inventory", text))
    code, lines = _refused(capsys, evals)
    assert code == 1
    assert lines == [_where("service-status-inventory") + "reference says " + said]


def test_an_owner_the_seed_does_not_hold_is_refused(evals, capsys):
    text = "The inventory service is down; it is owned by the payments team."
    mutate_ops(evals, _reference("service-status-inventory", text))
    code, lines = _refused(capsys, evals)
    assert code == 1
    assert lines == [
        _where("service-status-inventory") + "reference says inventory owner is payments; the "
        "seed says fulfilment"
    ]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("There is no incident INC-002; it does not exist.", "INC-002 does not exist; the seed "
         "has incident INC-002"),
        ("The inventory service does not exist.", "inventory does not exist; the seed has "
         "service inventory"),
        ("Runbook service-down: not found.", "service-down does not exist; the seed has runbook "
         "service-down"),
    ],
)  # fmt: skip
def test_not_found_said_of_what_the_seed_has_is_refused(evals, capsys, text, said):
    mutate_ops(evals, _reference("incident-detail-inc-002", text))
    code, lines = _refused(capsys, evals)
    assert code == 1
    assert lines == [_where("incident-detail-inc-002") + "reference says " + said]


@pytest.mark.parametrize(
    ("eval_id", "text", "said"),
    [
        ("ambiguous-symptom-runbook", "Follow the reboot-everything runbook.",
         "runbook reboot-everything; the seed has no runbook reboot-everything"),
        ("ambiguous-symptom-runbook", "Follow the restart-the-world runbook, then mitigate.",
         "runbook restart-the-world; the seed has no runbook restart-the-world"),
        ("load-remediation-skill", "Per the skill named rollback: restart once, with approval.",
         "skill rollback; the seed has no skill rollback"),
    ],
)  # fmt: skip
def test_a_runbook_or_skill_the_seed_lacks_is_refused(evals, capsys, eval_id, text, said):
    mutate_ops(evals, _reference(eval_id, text))
    code, lines = _refused(capsys, evals)
    assert code == 1
    assert lines == [_where(eval_id) + "reference names " + said]


def test_saying_a_runbook_does_not_exist_names_none_to_follow(evals, capsys):
    """A deliberate negative's only claim is that it is not (as `facts` reads it)."""
    text = "The reboot-everything runbook does not exist; I will not guess another."
    mutate_ops(evals, _reference("unknown-runbook-reboot-everything", text))
    code, lines = _refused(capsys, evals)
    assert (code, lines) == (0, [])


def test_an_approved_write_is_read_against_the_state_after_it(evals, capsys):
    """holdout-approve-resolve-inc-002 approves resolve_incident(INC-002): "resolved" is the
    state after it (as shipped, accepted); "open", the seed's, is refused naming both."""
    path = evals / "holdout.evalset.json"
    data = load(path)
    assert "INC-002 is resolved." in json.dumps(case(data, "holdout-approve-resolve-inc-002"))
    assert _refused(capsys, evals) == (0, [])

    _reference("holdout-approve-resolve-inc-002", "INC-002 is still open.")(data)
    save(path, data)
    code, lines = _refused(capsys, evals)
    assert code == 1
    assert lines == [
        _where("holdout-approve-resolve-inc-002", HOLDOUT) + "reference says INC-002 status is "
        "open; after the approved resolve_incident(incident_id=INC-002) it is resolved (the "
        "seed: open)"
    ]


def test_a_restart_approved_makes_operational_right_and_down_wrong(evals, capsys):
    mutate_ops(evals, _reference("approve-restart-inventory", "Inventory is still down."))
    code, lines = _refused(capsys, evals)
    assert code == 1
    assert lines == [
        _where("approve-restart-inventory") + "reference says inventory status is down; after "
        "the approved restart_service(name=inventory) it is operational (the seed: down)"
    ]


def test_an_approved_write_a_fault_fails_changes_nothing(evals, capsys):
    """fault-restart-errors-after-approval approves the restart of inventory, and a fault fails
    it (as the gold store of `end_state` has it: no row): inventory is still down."""
    text = "The restart of inventory went through after approval; inventory is now operational."
    mutate_ops(evals, _reference("fault-restart-errors-after-approval", text))
    code, lines = _refused(capsys, evals)
    assert code == 1
    assert lines == [
        _where("fault-restart-errors-after-approval") + "reference says inventory status is "
        "operational; the seed says down"
    ]


def _goal_claim(evals: Path, eval_id: str, claim: str) -> None:
    path = evals / "scenarios.evalset.json"
    data = load(path)
    case(data, eval_id)["meta"]["scenario"]["goal"]["claims"] = [claim]
    save(path, data)


def test_a_scenarios_goal_claim_is_read_against_the_seed(evals, capsys):
    _goal_claim(evals, "scn-vague-orders-failing", "The checkout service is operational.")
    code, lines = _refused(capsys, evals)
    assert code == 1
    assert lines == [
        f"{SCENARIOS}: case scn-vague-orders-failing, meta.scenario.goal.claims[0]: reference "
        "says checkout status is operational; the seed says degraded"
    ]


def test_a_scenarios_goal_claim_is_read_after_its_goal_writes(evals, capsys):
    _goal_claim(evals, "scn-close-cache-incident", "INC-007 is under investigation.")
    code, lines = _refused(capsys, evals)
    assert code == 1
    assert lines == [
        f"{SCENARIOS}: case scn-close-cache-incident, meta.scenario.goal.claims[0]: reference "
        "says INC-007 status is investigating; after the approved "
        "resolve_incident(incident_id=INC-007) it is resolved (the seed: investigating)"
    ]


def test_a_triage_reference_is_its_ports_to_check_and_said_once(evals, capsys):
    """The triage agent shares the seed, but answers with a TriageReport: its port checks the
    reference (`policy_rules.answer_reference`); this rule says nothing more of it."""
    path = evals / "triage-report.evalset.json"
    data = load(path)
    final = case(data, "triage-inc-002")["conversation"][0]["final_response"]["parts"][0]
    final["text"] = final["text"].replace('"SEV1"', '"SEV3"')
    save(path, data)
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert [ln for ln in out if "case triage-inc-002, turn 1, final_response" in ln] == [
        "evals/triage-report.evalset.json: case triage-inc-002, turn 1, final_response.severity: "
        "TriageReport severity 'SEV3' disagrees with the seed's 'SEV1' for INC-002"
    ]


def test_a_case_of_an_agent_with_its_own_seed_is_left_alone(tmp_path, monkeypatch, capsys):
    """The ticket desk's reference read by the ops copilot's reader would be wrong twice over;
    the desk has no claims reader, so nothing is said of it."""
    here = Path(__file__).parents[1] / "your_agent"
    copy = tmp_path / "your_agent"
    shutil.copytree(here, copy, ignore=shutil.ignore_patterns("test_*", "__pycache__"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(copy))
    path = copy / "ticket_desk.evalset.json"
    data = load(path)
    text = "Ticket T-2 is open. The inventory service is operational, owned by the storefront team."
    _reference("ticket-status-t2", text)(data)
    save(path, data)
    assert main(["validate", "--agent", "ticket_desk", str(path)]) == 0, capsys.readouterr()
    assert "2 cases agree with the seed" in capsys.readouterr().out
