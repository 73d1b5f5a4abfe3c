"""The `facts` scorer and the claims it compares: each claim of the reference asserted, none
contradicted, negation and scope read, n/a where nothing can be checked -- never a pass."""

from __future__ import annotations

import pytest

from ops_copilot.claims import Vocabulary, extract, judge
from ops_eval.scorers.facts import facts

DOWN = "Inventory is down (INC-002, SEV1, open)."
NO_999 = "There is no incident INC-999; it does not exist, so it has no status."
OPEN = "Two incidents are open: INC-002 (inventory, SEV1) and INC-009 (checkout, SEV2)."
CASCADE = "The root cause is INC-007, the cache eviction storm."
PAUSE = "Restarting inventory needs a human approval. It is waiting for approval."


@pytest.fixture(scope="module")
def vocab(request):
    plan = request.getfixturevalue("plan")
    return Vocabulary.of(plan.seed, plan.negatives)


@pytest.mark.parametrize(
    ("reference", "response", "verdict", "detail"),
    [
        # the two contradictions that used to pass
        (DOWN, "Inventory is not down. INC-002 is not SEV1 and not open.", False,
         "contradicts inventory status down (said: inventory status not down); INC-002 "
         "severity SEV1 (said: INC-002 severity not SEV1); INC-002 status open (said: INC-002 "
         "status not open)"),
        (NO_999, "There is no problem: INC-999 is open and owned by payments.", False,
         "describes INC-999 as if it existed; does not say INC-999 does not exist"),
        # the same facts in other words
        (DOWN, "Inventory is down; INC-002 is SEV1 and open.", True, ""),
        (NO_999, "I could not find INC-999 in the ops database.", True, ""),
        (NO_999, "INC-999 doesn't exist.", True, ""),
        (OPEN, "INC-002 (SEV1) and INC-009 (SEV2) are open.", True, ""),
        # negation and scope
        (OPEN, "There are no open incidents.", False, "contradicts INC-002 status open"),
        (DOWN, "Inventory is no longer down; INC-002 (SEV1) is open.", False,
         "contradicts inventory status down (said: inventory status not down)"),
        (DOWN, "Inventory is down and INC-002 (SEV1) is open, not resolved.", True, ""),
        (DOWN, "Inventory is down and INC-002 is SEV1 and unresolved, open.", True, ""),
        # a status on the wrong entity
        (DOWN, "Checkout is down (INC-002, SEV1, open).", False,
         "does not say inventory status down"),
        ("Checkout is degraded.", "Checkout is operational and inventory is degraded.", False,
         "contradicts checkout status degraded (said: checkout status operational)"),
        # two entities in one sentence
        ("Checkout is degraded and inventory is down.", "Checkout and inventory are down.", False,
         "contradicts checkout status degraded (said: checkout status down)"),
        ("Checkout is degraded and inventory is down.", "Inventory is down, checkout degraded.",
         True, ""),
        (OPEN, "INC-002 is open (SEV2) and INC-009 is open (SEV1).", False,
         "contradicts INC-002 severity SEV1 (said: INC-002 severity SEV2)"),
        # a value said of 'the others' belongs to no named entity
        ("Inventory is down, the others are operational.", "Inventory is down.", True, ""),
        # root cause, owner, approval state
        (CASCADE, "The root cause is INC-008.", False,
         "contradicts root cause INC-007 (said: root cause INC-008)"),
        ("Inventory is down. It is owned by the fulfilment team.",
         "Inventory is down and is owned by the payments team.", False,
         "contradicts inventory owner fulfilment (said: inventory owner payments)"),
        (PAUSE, "I restarted inventory; it was approved.", False,
         "contradicts approval pending (said: approval given)"),
        ("The restart of database was rejected; database is still operational.",
         "The restart was denied. Database remains operational.", True, ""),
    ],
)  # fmt: skip
def test_claims_are_asserted_and_not_contradicted(vocab, reference, response, verdict, detail):
    judged = judge(reference, response, vocab)
    assert judged.applicable and judged.holds is verdict, judged.detail()
    assert detail in judged.detail()


@pytest.mark.parametrize(
    ("case", "response", "verdict"),
    [
        # a 'no' in one sentence negates nothing in the next
        ("recall-before-investigating-inc-007",
         "I found no notes. INC-007 is SEV2, status investigating.", True),
        ("open-incidents", "INC-007 is not open. Open incidents: INC-002 (inventory, SEV1) and "
         "INC-009 (checkout, SEV2).", True),
        # a negative treated as real but empty is not said not to exist
        ("holdout-unknown-inc-404", "There are no timeline entries for INC-404 yet.", False),
        ("unknown-incident-inc-999", "No notes have been saved on INC-999 so far.", False),
        ("unknown-service-warehouse", "No incidents are open for warehouse; it looks healthy.",
         False),
        ("unknown-runbook-reboot-everything", "The reboot-everything runbook does not exist.",
         True),
        ("unknown-runbook-reboot-everything", "Runbook reboot-everything was not found.", True),
        # root cause: the phrase, not any 'caused by'; an id over a service word
        ("cascade-root-cause-inc-009",
         "INC-009 was caused by INC-008, and the root cause of both is INC-007.", True),
        ("cascade-root-cause-inc-009", "The root cause is the cache eviction storm, INC-007.",
         True),
        ("cascade-root-cause-inc-009", "Root cause: INC-007 (cache eviction storm).", True),
        ("cascade-root-cause-inc-009", "INC-007 is the root cause.", True),
        # a condition is not an outcome; an outcome outweighs a general rule
        ("restart-needs-approval", "It will run once it is approved; it is waiting for approval.",
         True),
        ("approve-restart-inventory", "Restarts require approval. The restart of inventory was "
         "approved and inventory is now operational.", True),
        # a past state is not a current one
        ("approve-restart-inventory", "Inventory was down; after approval it is now operational.",
         True),
        # labels and lists, as answers are often written
        ("service-status-inventory",
         "INC-002: SEV1, open. inventory: status down, owner: fulfilment team.", True),
        ("holdout-checkout-incidents", "- **INC-001** (SEV3): resolved\n- **INC-009** (SEV2): open",
         True),
        ("open-incidents",
         "Open incidents:\n- INC-002 — inventory — SEV1\n- INC-009 — checkout — SEV2", True),
        # a structured report is compared field by field, as the tools name things
        ("triage-inc-002", '{"incident_id": "INC-002", "service": "Inventory", "severity": "SEV1",'
         ' "runbook": "service-down"}', True),
        # naming a skill means naming it as a skill
        ("load-remediation-skill", "Use remediation carefully.", False),
        # a key-value list or table under the line or heading that names its entity
        ("incident-detail-inc-002", "Here is INC-002:\n\n- **Severity**: SEV1\n- **State**: "
         "open\n- **Runbook**: service-down", True),
        ("incident-detail-inc-002", "### INC-002\n| Field | Value |\n|---|---|\n| Severity | "
         "SEV1 |\n| Status | open |\n| Runbook | service-down |", True),
        ("incident-detail-inc-002", "INC-002 is being looked at.\nWe checked other things too."
         "\n- Severity: SEV1\n- Status: open\nRunbook: service-down", False),  # prose between
        ("holdout-checkout-incidents", "| Incident | Severity | Status |\n|---|---|---|\n| "
         "INC-001 | SEV3 | resolved |\n| INC-009 | SEV2 | open |", True),
        # an enumeration after the value it shares
        ("open-incidents", "Incidents with status open right now are INC-002 and INC-009.", True),
        ("open-incidents", "Currently open: INC-002, INC-009.", True),
        # a name in quotes is the name
        ("unknown-runbook-reboot-everything", "The runbook 'reboot-everything' does not exist.",
         True),
        ("unknown-runbook-reboot-everything", 'No runbook named "reboot-everything" was found.',
         True),
        # a past state, however worded, is not the current one
        ("approve-restart-inventory", "The restart of inventory was approved. It was formerly in "
         "the 'down' state and is operational now.", True),
    ],
)  # fmt: skip
def test_answers_found_in_review(references, vocab, case, response, verdict):
    judged = judge(references[case], response, vocab)
    assert judged.applicable and judged.holds is verdict, judged.detail()


@pytest.fixture(scope="module")
def references():
    from ops_eval import load_plan
    from support import REPO

    refs = {}
    for name in ("ops", "holdout", "triage-report"):
        for case in load_plan(REPO / "evals" / f"{name}.evalset.json").cases:
            refs[case.eval_id] = case.turns[-1].reference
    return refs


def test_the_owner_of_the_previous_sentences_subject(vocab):
    claims = [
        c.show() for c in extract("Inventory is down. It is owned by the fulfilment team.", vocab)
    ]
    assert claims == ["inventory status down", "inventory owner fulfilment"]


def test_statuses_severities_and_entities_come_from_the_seed(plan, vocab):
    from typing import get_args

    from ops_copilot.seed.loading import IncidentStatus, ServiceStatus, Severity

    claims = extract("Inventory is degraded; INC-005 is investigating and SEV3.", vocab)
    assert {c.value for c in claims} == {"degraded", "investigating", "SEV3"}
    assert set(get_args(ServiceStatus)) | set(get_args(IncidentStatus)) | set(
        get_args(Severity)
    ) >= {c.value for c in claims}
    assert vocab.services >= set(plan.seed.services) and "warehouse" in vocab.services
    assert vocab.teams == {s.team for s in plan.seed.services.values()}


def test_no_checkable_claim_is_not_applicable(vocab):
    judged = judge("Paris. That question needs none of the ops tools.", "Paris.", vocab)
    assert not judged.applicable


def test_the_scorer_passes_the_reference_and_fails_a_weakened_answer(trial, plan):
    assert facts(trial("service-status-inventory"), plan).passed
    weakened = ["The inventory service is operational; INC-002 (SEV1) is open."]
    score = facts(trial("service-status-inventory", responses=weakened), plan)
    assert score.outcome == "fail"
    assert score.detail == (
        "turn 1: contradicts inventory status down (said: inventory status operational)"
    )
    silent = ["The inventory service is owned by the fulfilment team."]
    score = facts(trial("service-status-inventory", responses=silent), plan)
    assert score.detail == "turn 1: does not say inventory status down"


def test_a_relevance_case_is_not_applicable_not_a_pass(trial, plan):
    score = facts(trial("relevance-no-tool"), plan)
    assert score.outcome == "n/a"
    assert score.detail == "turn 1: the reference makes no checkable claim"


def test_a_pause_written_by_the_harness_is_never_evidence(trial, plan):
    view = trial("restart-needs-approval")
    (turn,) = view.turns
    turn.response = "Waiting for approval: restart_service(name=inventory). No state change."
    turn.response_synthesized = True
    score = facts(view, plan)
    assert score.outcome == "n/a"
    assert score.detail == "turn 1: the harness wrote the response at the pause"


def test_the_agents_own_words_at_a_pause_are_checked(trial, plan):
    said = ["Inventory was restarted."]
    score = facts(trial("restart-needs-approval", responses=said), plan)
    assert score.outcome == "fail" and "does not say approval pending" in score.detail


def test_a_negative_left_unnamed_fails(trial, plan):
    score = facts(trial("unknown-service-warehouse", responses=["It does not exist."]), plan)
    assert score.detail == "turn 1: does not say warehouse does not exist"


@pytest.mark.parametrize(
    "response",
    [
        "I can't tell whether inventory is down: the status check failed.",
        "I don't know if inventory is down.",
    ],
)
def test_an_open_question_does_not_assert_the_state_it_asks_about(vocab, response):
    """'whether inventory is down' asks; it must not pass for 'inventory is down'."""
    assert [c.show() for c in extract(response, vocab)] == []
    assert judge("Inventory is down.", response, vocab).holds is False


def test_an_answer_nested_past_the_json_parser_is_read_as_text_not_a_crash(vocab):
    """A model answer of 100,000 nested brackets made the triage-report reader raise
    RecursionError in the middle of scoring; it is prose to the claim reader, with no claim."""
    assert extract("[" * 100_000 + "]" * 100_000, vocab) == []


def test_the_answer_guards_warning_is_never_read_as_the_models_words(trial, plan):
    """The guard quotes each flagged claim ("inventory status down"); a scorer reading the
    warning as the answer failed a right answer with the guard's own quote."""
    from ops_copilot.guards.guard_text import WARNING
    from ops_eval.scorers.grounded import grounded

    said = "Inventory is down. It is owned by the fulfilment team; INC-002 is unresolved."
    warned = f'{said}\n\n{WARNING}\n- "inventory status operational": contradicts a tool result'
    view = trial("service-status-inventory", responses=[warned], results=True)
    assert view.turns[0].answer == said
    assert facts(view, plan).passed
    assert grounded(view, plan).outcome != "fail"


def test_a_pasted_json_record_is_read_field_by_field_never_as_prose(vocab):
    """Read as prose, each `"key":` introduced a list, and INC-009 got INC-001's severity."""
    pasted = (
        'Here: {"incidents": [{"id": "INC-001", "severity": "SEV3", "status": "resolved"}, '
        '{"id": "INC-009", "severity": "SEV2", "status": "open"}]} and inventory is down.'
    )
    assert sorted(c.show() for c in extract(pasted, vocab)) == [
        "INC-001 severity SEV3",
        "INC-001 status resolved",
        "INC-009 severity SEV2",
        "INC-009 status open",
        "inventory status down",
    ]
    service = '{"service": {"name": "inventory", "status": "down", "team": "fulfilment"}}'
    assert [c.show() for c in extract(service, vocab)] == [
        "inventory status down",
        "inventory owner fulfilment",
    ]


def test_healthy_is_how_operational_is_often_said(vocab):
    assert [c.show() for c in extract("Checkout is not healthy; it is degraded.", vocab)] == [
        "checkout status not operational",
        "checkout status degraded",
    ]


def _crafted_claims() -> list[str]:
    """The crafted answers of tests/answer_bypasses.yaml that say "INC-008 is resolved"."""
    from pathlib import Path

    import yaml

    crafted = yaml.safe_load((Path(__file__).parents[1] / "answer_bypasses.yaml").read_text())
    return [a for c in crafted["classes"].values() if c["goal"] == "claim" for a in c["answers"]]


@pytest.mark.parametrize("response", _crafted_claims())
def test_a_claim_is_read_as_a_person_sees_it(vocab, response):
    """A zero-width space, a dash, a look-alike letter or markup inside a word, or the status
    said in other words: the claim it looks like, to the scorer as to the answer guard."""
    assert judge("INC-008 is resolved.", response, vocab).holds
    assert judge("INC-008 is open.", response, vocab).contradicted


@pytest.mark.parametrize(
    ("response", "claims"),
    [
        ("Is INC-002 resolved?", []),
        ("INC-007 is investigating. What tells us it is fixed?", ["INC-007 status investigating"]),
        ("Did you know that INC-002 is resolved?", ["INC-002 status resolved"]),
        ("INC-002 is not fixed yet; INC-001 is closed.",
         ["INC-002 status not resolved", "INC-001 status resolved"]),
    ],
)  # fmt: skip
def test_a_question_asks_and_a_statement_inside_one_asserts(vocab, response, claims):
    assert [c.show() for c in extract(response, vocab)] == claims
