"""The `pydantic` scorer: the answer's JSON (or its one fenced ```json block's) validates as a
declared answer model (`answer_models`: each agent's answer schema); n/a without such a check;
an unknown model name in a check built in code is an error. The registry is the agents' own
declaration: each built agent's `output_schema` is its entry."""

from __future__ import annotations

import json

import pytest

from ops_eval.core.answer_models import ANSWER_MODELS, ANSWER_SCHEMAS
from ops_eval.core.response_checks import PydanticCheck

CASE = "triage-inc-002"
GOOD = {
    "incident_id": "INC-002",
    "service": "inventory",
    "severity": "SEV1",
    "suspected_cause": "config v42 does not fit the memory limit",
    "evidence": ["kubelet: container inventory OOMKilled (limit 512Mi)"],
    "runbook": "service-down",
    "next_steps": ["Revert inventory-config v42."],
}


@pytest.fixture(scope="module")
def plan():
    """The triage set's plan: its cases target the triage agent."""
    from ops_eval import load_plan
    from support import REPO

    return load_plan(REPO / "evals" / "triage-report.evalset.json")


@pytest.mark.parametrize(
    ("answer", "outcome", "why"),
    [
        (json.dumps(GOOD), "pass", ""),
        ("```json\n" + json.dumps(GOOD, indent=2) + "\n```", "pass", ""),
        (json.dumps({**GOOD, "severity": "SEV9"}), "fail",
         "does not validate as TriageReport: severity"),
        (json.dumps({**GOOD, "incident_id": "INC-2"}), "fail", "incident_id: String should match"),
        (json.dumps({**GOOD, "extra": 1}), "fail", "extra: Extra inputs are not permitted"),
        (json.dumps({k: v for k, v in GOOD.items() if k != "runbook"}), "fail",
         "runbook: Field required"),
        ("INC-002 is SEV1; follow service-down.", "fail", "not JSON"),
    ],
)  # fmt: skip
def test_the_answer_must_validate_as_the_model(checked, score, answer, outcome, why):
    view = checked(CASE, [{"scorer": "pydantic", "model": "TriageReport"}], responses=[answer])
    result = score("pydantic", view)
    assert result.outcome == outcome, result
    assert why in result.detail


def test_many_errors_are_counted_not_all_listed(checked, score):
    view = checked(CASE, [{"scorer": "pydantic", "model": "TriageReport"}], responses=["{}"])
    assert score("pydantic", view).detail.endswith("(and 4 more)")


def test_without_a_pydantic_check_it_is_not_applicable(checked, score):
    assert score("pydantic", checked(CASE, [{"scorer": "json_valid"}])).outcome == "n/a"


def test_an_unknown_model_built_in_code_is_an_error(checked, score):
    bad = PydanticCheck.model_construct(scorer="pydantic", model="ops_copilot.secrets.Key")
    result = score("pydantic", checked(CASE, [bad], responses=[json.dumps(GOOD)]))
    assert result.outcome == "error"
    assert "model: 'ops_copilot.secrets.Key' is not a known answer model" in result.detail


def test_an_agent_asked_for_by_name_gives_its_schema_before_any_set_named_it():
    """Failed before: only agents already loaded (by some set naming them) had a schema, so
    `ANSWER_SCHEMAS["triage_report"]` raised `KeyError` when run first (CI, random order)."""
    assert ANSWER_SCHEMAS["triage_report"].__name__ == "TriageReport"
    with pytest.raises(KeyError):
        ANSWER_SCHEMAS["ops_copilot"]  # answers in free text: no schema


def test_the_model_names_are_the_agents_declared_answer_schemas(plan):
    from ops_eval.agents import AGENTS

    assert {"TriageReport": ANSWER_SCHEMAS["triage_report"]} == ANSWER_MODELS
    for name, entry in AGENTS.items():
        built = entry.build_agent("openai/not-called")  # building an agent calls no model
        assert built.output_schema is ANSWER_SCHEMAS.get(name), name
