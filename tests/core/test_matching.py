"""Call matching under argument matchers, and the five match modes: each with a passing and a
failing example."""

from __future__ import annotations

import pytest

from ops_eval import ToolCall
from ops_eval.core.calls import in_order
from ops_eval.core.contracts import Contracts
from ops_eval.core.matching import (
    call_matches,
    first_unmatched,
    matcher_for,
    mismatch,
    mode_holds,
    pairing,
)


def matchers(raw: dict) -> dict:
    return Contracts.model_validate({"args": raw}).args


INC = ToolCall("get_incident", {"incident_id": "INC-002"})
NOTE = ToolCall("save_incident_note", {"incident_id": "INC-002", "note": "Pods OOMKilled at 512Mi"})


@pytest.mark.parametrize(
    ("spec", "expected", "good", "bad"),
    [
        (None, INC, {"incident_id": "INC-002"}, {"incident_id": "inc-002"}),
        ({"match": "exact"}, INC, {"incident_id": "INC-002"}, {"incident_id": "INC 002"}),
        ({"match": "any"}, INC, {"incident_id": "INC-777"}, None),
        (
            {"match": "one_of", "values": ["INC-002", "INC-003"]},
            INC,
            {"incident_id": "INC-003"},
            {"incident_id": "INC-004"},
        ),
        (
            {"match": "regex", "pattern": r"INC-00\d"},
            INC,
            {"incident_id": "INC-009"},
            {"incident_id": "INC-0099"},  # fullmatch, not search
        ),
        ({"match": "normalised"}, INC, {"incident_id": "  inc 002 "}, {"incident_id": "INC-020"}),
    ],
)
def test_each_incident_id_matcher(spec, expected, good, bad):
    m = matchers({"get_incident": {"incident_id": spec}}) if spec else {}
    assert call_matches(expected, ToolCall(expected.name, good), m)
    if bad is not None:
        assert not call_matches(expected, ToolCall(expected.name, bad), m)


def test_any_also_accepts_a_missing_argument_and_nothing_else_is_loosened():
    m = matchers({"search_service_logs": {"query": {"match": "any"}}})
    expected = ToolCall("search_service_logs", {"service": "inventory", "query": "OOMKilled"})
    assert call_matches(expected, ToolCall("search_service_logs", {"service": "inventory"}), m)
    assert not call_matches(expected, ToolCall("search_service_logs", {"service": "checkout"}), m)


def test_normalised_uses_the_tools_entity_kind():
    m = matchers({"get_service_status": {"name": {"match": "normalised"}}})
    expected = ToolCall("get_service_status", {"name": "inventory"})
    assert call_matches(expected, ToolCall("get_service_status", {"name": " Inventory "}), m)
    assert not call_matches(expected, ToolCall("get_service_status", {"name": "inventor"}), m)


def test_contains_is_case_and_whitespace_insensitive():
    m = matchers({"save_incident_note": {"note": {"match": "contains", "text": "oomkilled  AT"}}})
    ok = ToolCall("save_incident_note", {"incident_id": "INC-002", "note": "pods OOMKilled at 1Gi"})
    assert call_matches(NOTE, ok, m)
    bad = ToolCall("save_incident_note", {"incident_id": "INC-002", "note": "pods restarted"})
    assert mismatch(NOTE, bad, m) == ["note: 'pods restarted' does not contain 'oomkilled  AT'"]


def test_a_different_tool_never_matches():
    assert not call_matches(INC, ToolCall("get_service_status", {"name": "INC-002"}), {})


A = ToolCall("list_services")
B = ToolCall("get_incident", {"incident_id": "INC-002"})
C = ToolCall("get_runbook", {"slug": "service-down"})


@pytest.mark.parametrize(
    ("mode", "expected", "good", "bad"),
    [
        ("EXACT", [A, B], [A, B], [A, B, C]),
        ("IN_ORDER", [A, B], [A, C, B], [B, A]),
        ("ANY_ORDER", [A, B], [C, B, A], [A, C]),
        ("SUBSET", [A, B, C], [C, A], [A, A]),
        ("SUPERSET", [A, B], [B, C, A], [B, C]),
    ],
)
def test_each_mode(mode, expected, good, bad):
    same = matcher_for({})
    assert mode_holds(mode, expected, good, same)
    assert not mode_holds(mode, expected, bad, same)


def test_an_actual_call_is_paired_once():
    same = matcher_for({})
    assert mode_holds("ANY_ORDER", [A, A], [A, C, A], same)
    assert not mode_holds("ANY_ORDER", [A, A], [A, C], same)
    assert not mode_holds("SUBSET", [A], [A, A], same)


def test_the_why_not_names_the_argument():
    m = matchers({"get_incident": {"incident_id": {"match": "normalised"}}})
    got = first_unmatched([INC], [ToolCall("get_incident", {"incident_id": "INC-020"})], m)
    assert got == (
        "expected get_incident(incident_id=INC-002), got get_incident(incident_id=INC-020): "
        "incident_id: 'INC-020' is not 'INC-002' after normalisation"
    )


def test_one_of_normalises_an_entity_argument_as_the_validator_does():
    # The validator accepts one_of values after `seed.normalise`; the scorer reads them the same.
    m = matchers({"get_service_status": {"name": {"match": "one_of", "values": ["Inventory"]}}})
    expected = ToolCall("get_service_status", {"name": "inventory"})
    assert call_matches(expected, ToolCall("get_service_status", {"name": " inventory "}), m)
    assert call_matches(expected, ToolCall("get_service_status", {"name": "INVENTORY"}), m)
    assert not call_matches(expected, ToolCall("get_service_status", {"name": "payments"}), m)
    m = matchers({"get_incident": {"incident_id": {"match": "one_of", "values": ["INC-002"]}}})
    assert call_matches(INC, ToolCall("get_incident", {"incident_id": "inc 002"}), m)


def test_one_of_on_free_text_stays_exact():
    m = matchers({"search_service_logs": {"query": {"match": "one_of", "values": ["timeout"]}}})
    expected = ToolCall("search_service_logs", {"service": "checkout", "query": "timeout"})
    loose = ToolCall("search_service_logs", {"service": "checkout", "query": "TIMEOUT"})
    assert not call_matches(expected, loose, m)


def test_the_unordered_modes_use_a_maximum_pairing_not_a_greedy_one():
    # e1 matches either actual call, e2 only the first: a greedy pass gives a1 to e1 and leaves
    # e2 unpaired; the maximum pairing is e1-a2, e2-a1.
    e1, e2 = ToolCall("get_incident", {"incident_id": "any"}), INC
    a1, a2 = INC, ToolCall("get_incident", {"incident_id": "INC-003"})

    def same(e, a):
        return e.name == a.name and (e is e1 or e.args == a.args)

    assert pairing([e1, e2], [a1, a2], same) == {0: 1, 1: 0}
    assert mode_holds("ANY_ORDER", [e1, e2], [a1, a2], same)
    assert mode_holds("SUBSET", [e1, e2], [a1, a2], same)


def test_superset_is_any_order():
    same = matcher_for({})
    for actual in ([A, B], [B, C, A], [B, C], [A], [C, A, B, A]):
        assert mode_holds("SUPERSET", [A, B], actual, same) == mode_holds(
            "ANY_ORDER", [A, B], actual, same
        )


def test_in_order_is_one_function_with_an_optional_comparison():
    loose = matcher_for(matchers({"get_incident": {"incident_id": {"match": "normalised"}}}))
    spaced = ToolCall("get_incident", {"incident_id": " inc 002"})
    assert not in_order([A, spaced], [A, INC])  # ADK's whole-args equality by default
    assert in_order([A, spaced], [A, INC], loose)
    assert not in_order([spaced, A], [A, INC], loose)
    assert mode_holds("IN_ORDER", [A, INC], [A, C, spaced], loose)
