"""Tools over the real seed: found, not found, normalised, path-proof, spotlighted."""

from __future__ import annotations

import pytest

from ops_copilot.definition import guarded_tools, tool_specs, write_tools
from ops_copilot.guards.spotlight import FENCE_CLOSE, FENCE_OPEN

READS = (
    "list_services",
    "get_service_status",
    "list_incidents",
    "get_incident",
    "search_runbooks",
    "get_runbook",
    "search_service_logs",
    "recall_incident_context",
    "list_skills",
    "load_skill",
)
WRITES = ("save_incident_note", "restart_service", "resolve_incident")


def test_the_model_is_shown_the_reads_then_the_writes_in_declaration_order():
    """The agent's tool list is the registry's order; the tool schema digest sorts the tools,
    so a reordering (which changes what a model sees) would pass every gate unnoticed."""
    from ops_copilot.agent import root_agent

    expected = [*READS, *WRITES]
    assert list(tool_specs()) == expected
    shown = [getattr(t, "name", getattr(t, "__name__", None)) for t in root_agent.tools]
    assert [name for name in shown if name in expected] == expected


@pytest.mark.parametrize(
    "first", ["ops_copilot.tools.actions", "ops_copilot.tools.reads", "ops_copilot.agent"]
)
def test_the_tool_order_does_not_depend_on_which_module_is_imported_first(first):
    """The validator imports `actions` (for `note_problem`) before anything asks for the tools:
    the reads must still register first."""
    import subprocess
    import sys

    probe = f"import {first}\nfrom ops_copilot.definition import tool_specs\nprint(*tool_specs())"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    ).stdout.split()
    assert out[0] == READS[0] and out[-3:] == list(WRITES)


def test_registry_is_derived_from_the_declarations():
    specs = tool_specs()
    assert write_tools() == set(WRITES)
    assert guarded_tools() == {"restart_service", "resolve_incident"}
    assert specs["get_incident"].entities == {"incident_id": "incident"}
    assert specs["search_service_logs"].required == {"service", "query"}
    assert "tool_context" not in specs["list_incidents"].params
    assert set(specs) >= set(READS)


def test_get_incident_returns_the_record_with_fenced_text(call):
    result = call("get_incident", incident_id="INC-002")
    inc = result["incident"]
    assert (result["status"], inc["service"], inc["severity"], inc["status"]) == (
        "ok",
        "inventory",
        "SEV1",
        "open",
    )
    assert inc["summary"].startswith(FENCE_OPEN) and FENCE_CLOSE in inc["summary"]
    assert "OOMKilled" in inc["summary"]


@pytest.mark.parametrize(
    ("tool", "args", "kind"),
    [
        ("get_incident", {"incident_id": "INC-999"}, "incident"),
        ("recall_incident_context", {"incident_id": "INC-999"}, "incident"),
        ("get_service_status", {"name": "warehouse"}, "service"),
        ("search_service_logs", {"service": "warehouse", "query": "error"}, "service"),
        ("list_incidents", {"service": "warehouse"}, "service"),
        ("get_runbook", {"slug": "reboot-everything"}, "runbook"),
        ("load_skill", {"name": "hacking"}, "skill"),
        ("save_incident_note", {"incident_id": "INC-999", "note": "x"}, "incident"),
    ],
)
def test_unknown_entities_get_a_structured_not_found(call, workspace, tool, args, kind):
    before = workspace.store.snapshot()
    result = call(tool, **args)
    assert result["status"] == "not_found" and result["exists"] is False
    assert result["entity"] == kind and "does not exist" in result["message"]
    assert workspace.store.snapshot() == before


def test_not_found_incident_offers_no_guess(call):
    result = call("get_incident", incident_id="INC-999")
    assert "INC-009" not in str(result)


@pytest.mark.parametrize(
    ("tool", "args", "expected"),
    [
        ("get_incident", {"incident_id": "  inc-002 "}, "INC-002"),
        ("get_service_status", {"name": " Inventory"}, "inventory"),
        ("get_service_status", {"name": "API Gateway"}, "api-gateway"),
        ("get_runbook", {"slug": "Service-Down"}, "service-down"),
    ],
)
def test_ids_are_normalised(call, tool, args, expected):
    result = call(tool, **args)
    assert result["status"] == "ok", result
    assert expected in str(result)


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("get_runbook", {"slug": "../../etc/passwd"}),
        ("get_runbook", {"slug": "/etc/passwd"}),
        ("search_service_logs", {"service": "../../etc/passwd", "query": "root"}),
        ("search_service_logs", {"service": "inventory; rm -rf /", "query": ""}),
        ("load_skill", {"name": "../remediation"}),
        ("get_service_status", {"name": "inventory/../../../seed/services.yaml"}),
    ],
)
def test_path_like_input_reaches_nothing(call, tool, args):
    result = call(tool, **args)
    assert result["status"] == "not_found"
    assert "root:" not in str(result) and "depends_on:" not in str(result)


def test_oversized_and_wrongly_typed_arguments_are_invalid(call):
    assert call("get_incident", incident_id="INC-" + "9" * 5000)["status"] == "invalid_argument"
    assert call("get_incident", incident_id=42)["status"] == "invalid_argument"
    assert call("list_incidents", status="broken")["status"] == "invalid_argument"
    assert call("search_service_logs", service="inventory", query="x", limit="many")["status"] == (
        "invalid_argument"
    )


def test_list_incidents_filters(call):
    assert [i["id"] for i in call("list_incidents", service="checkout")["incidents"]] == [
        "INC-001",
        "INC-009",
    ]
    open_ids = [i["id"] for i in call("list_incidents", status="open")["incidents"]]
    assert open_ids == ["INC-002", "INC-009"]
    assert call("list_incidents")["count"] == 10


def test_service_status_reads_the_store(call, workspace):
    assert call("get_service_status", name="inventory")["service"]["status"] == "down"
    workspace.store.apply_write(
        "restart_service",
        "inventory",
        approver="a",
        rationale="r",
        session_id="s",
        invocation_id="e",
    )
    assert call("get_service_status", name="inventory")["service"]["status"] == "operational"


def test_search_runbooks_ranks_the_matching_runbook_first(call):
    assert (
        call("search_runbooks", query="slow responses and 502 at the gateway")["matches"][0]["slug"]
        == "high-latency"
    )
    assert call("search_runbooks", query="pods crash-looping")["matches"][0]["slug"] == (
        "service-down"
    )
    assert call("search_runbooks", query="zzzz qqqq")["matches"] == []


def test_logs_are_searched_and_limited(call):
    result = call("search_service_logs", service="inventory", query="OOMKilled", limit=2)
    assert result["match_count"] == 2 and result["lines"].count("OOMKilled") == 2
    latest = call("search_service_logs", service="cache", query="", limit=3)
    assert latest["match_count"] == 3 and "39870/s" in latest["lines"]
    none = call("search_service_logs", service="payments", query="error")
    assert none["status"] == "ok" and none["match_count"] == 0


def test_planted_database_instruction_comes_back_fenced_and_neutralised(call):
    result = call("search_service_logs", service="database", query="pool")
    text = result["lines"]
    assert result["neutralised"] == 1
    assert text.startswith(FENCE_OPEN) and text.rstrip().endswith(">>>")
    assert "IGNORE ALL PREVIOUS INSTRUCTIONS" not in text.upper()
    assert "without approval" not in text
    assert "db-primary ops-bot: pool note: [neutralised:" in text
    # The genuine evidence around it is untouched.
    assert "pool db_main exhausted (200/200), clients waiting 1450" in text


def test_notes_round_trip_through_recall(call):
    saved = call("save_incident_note", incident_id="inc-002", note="Pods OOMKilled at 512Mi.")
    assert saved["status"] == "ok"
    recalled = call("recall_incident_context", incident_id="INC-002")
    assert recalled["note_count"] == 1 and "Pods OOMKilled at 512Mi." in recalled["notes"]
    assert call("recall_incident_context", incident_id="INC-009")["note_count"] == 0


def test_skills_list_and_load(call):
    names = [s["name"] for s in call("list_skills")["skills"]]
    assert names == ["incident-triage", "remediation"]
    skill = call("load_skill", name="remediation")["skill"]
    assert "approval" in skill["instructions"]


def test_guarded_write_without_confirmation_is_refused_by_the_tool_itself(call, workspace):
    before = workspace.store.snapshot()
    result = call("restart_service", name="inventory")
    assert (result["status"], result["reason"]) == ("refused", "approval_required")
    assert workspace.store.snapshot() == before
