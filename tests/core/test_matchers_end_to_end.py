"""Argument matchers decide the verdict under `ops-eval`: a case that declares them is judged by
the `trajectory` gate (in the configured mode), `tool_policy` and `end_state` with them, end to
end through `execute`, while a wrong value still fails. (`adk eval`, which ignores `meta`, keeps
the exact expected arguments: `tests/project/test_adk_eval.py`.)"""

from __future__ import annotations

from pathlib import Path

from ops_eval import RunOptions, ToolCall, execute
from ops_eval.models.stand_ins import ScriptedLlm, fixed_model
from ops_eval.scorers.trajectory import WITH_MATCHERS
from support import REPO

OPS = REPO / "evals" / "ops.evalset.json"
STATUS_ANSWER = "The inventory service is down; its unresolved incident is INC-002."
NOTE_WORDED_DIFFERENTLY = "INC-002: OOMKilled pods, 512Mi limit, since config v42."


def run(tmp_path: Path, script: list, case_id: str):
    model = ScriptedLlm(script=script)
    chooser = fixed_model(model, model.model, "deterministic test model")
    options = RunOptions(set_path=OPS, cases=[case_id], output=tmp_path / "run.json")
    code, record, _ = execute(options, chooser=chooser)
    (trial,) = record.trials
    return code, trial


def memory_script(note: str) -> list:
    return [
        ToolCall("save_incident_note", {"incident_id": "INC-002", "note": note}),
        "Saved the note on INC-002.",
        ToolCall("recall_incident_context", {"incident_id": "INC-002"}),
        f"One note on INC-002: {note}",
    ]


def test_a_normalised_service_name_passes_the_trial(tmp_path):
    script = [ToolCall("get_service_status", {"name": "Inventory"}), STATUS_ANSWER]
    code, trial = run(tmp_path, script, "service-status-inventory")
    assert trial.status == "passed" and code == 0, {n: s.detail for n, s in trial.scores.items()}
    assert WITH_MATCHERS in trial.scores["trajectory"].detail


def test_a_different_service_still_fails_the_trajectory(tmp_path):
    script = [ToolCall("get_service_status", {"name": "payments"}), STATUS_ANSWER]
    code, trial = run(tmp_path, script, "service-status-inventory")
    assert code == 1 and trial.status == "failed"
    score = trial.scores["trajectory"]
    assert score.outcome == "fail" and "'payments' is not 'inventory' after normalisation" in (
        score.detail
    )


def test_a_note_with_the_required_text_in_other_words_passes_the_trial(tmp_path):
    code, trial = run(tmp_path, memory_script(NOTE_WORDED_DIFFERENTLY), "memory-note-then-recall")
    assert trial.status == "passed" and code == 0, {n: s.detail for n, s in trial.scores.items()}
    for name in ("trajectory", "tool_policy", "end_state"):
        assert trial.scores[name].passed


def test_a_note_without_the_required_text_still_fails(tmp_path):
    note = "INC-002: pods ran out of memory at 512Mi after config v42."
    code, trial = run(tmp_path, memory_script(note), "memory-note-then-recall")
    assert code == 1 and trial.status == "failed"
    assert "does not contain 'OOMKilled'" in trial.scores["trajectory"].detail
    assert trial.scores["tool_policy"].outcome == "fail"
    assert "(contains): none in the store" in trial.scores["end_state"].detail
