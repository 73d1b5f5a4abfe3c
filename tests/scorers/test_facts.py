"""The `facts` scorer: the reference's stable facts appear; a negative is never described as
existing."""

from __future__ import annotations

from ops_eval.scorers.facts import facts


def test_the_reference_itself_passes(trial, plan):
    assert facts(trial("open-incidents"), plan).passed


def test_a_missing_fact_fails(trial, plan):
    said = ["Two incidents are open: INC-002 (inventory, SEV1) and INC-009 (checkout)."]
    score = facts(trial("open-incidents", responses=said), plan)
    assert score.outcome == "fail" and score.detail == "turn 1: missing SEV2"


def test_a_negative_described_as_existing_fails(trial, plan):
    said = ["INC-999 is open and owned by payments."]
    score = facts(trial("unknown-incident-inc-999", responses=said), plan)
    assert score.detail.startswith("turn 1: describes INC-999 as if it existed")


def test_a_negative_left_unnamed_fails(trial, plan):
    score = facts(trial("unknown-service-warehouse", responses=["It does not exist."]), plan)
    assert score.detail == "turn 1: does not name warehouse"
