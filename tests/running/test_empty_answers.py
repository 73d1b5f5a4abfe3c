"""An answer with nothing in it is no answer, through the real runner and a scripted model (a
stand-in, named as such): `complete` fails a turn that ends on whitespace, an empty code fence or
markup alone -- what a model that fences its tool calls leaves once ADK takes the call out --
while a turn that ends at an approval pause with such a leftover is the pause, which counts."""

from __future__ import annotations

import pytest

from ops_eval import RunOptions, ToolCall, execute
from ops_eval.core.calls import pause_text
from ops_eval.models.stand_ins import ScriptedLlm, fixed_model

STATUS = ToolCall("get_service_status", {"name": "inventory"})
RESTART = ToolCall("restart_service", {"name": "inventory"})


def played(tmp_path, case, script):
    model = ScriptedLlm(script=script)
    options = RunOptions(cases=[case], output=tmp_path / "run.json")
    _, record, _ = execute(options, chooser=fixed_model(model, "scripted", "a test's script"))
    (trial,) = record.trials
    return trial


@pytest.mark.parametrize("empty", ["```json\n\n```", "<tool_response></tool_response>", " \n"])
def test_an_answer_with_nothing_in_it_fails_complete(tmp_path, empty):
    trial = played(tmp_path, "service-status-inventory", [STATUS, empty])
    assert trial.turns[0].response == empty.strip()
    assert trial.scores["complete"].outcome == "fail"
    assert trial.scores["complete"].detail.startswith("no answer with content (turn 1")
    assert trial.status == "failed"


def test_an_answer_that_says_something_passes_complete(tmp_path):
    trial = played(tmp_path, "service-status-inventory", [STATUS, "```\ninventory: down\n```"])
    assert trial.scores["complete"].outcome == "pass"


def test_a_pause_with_an_empty_fence_beside_the_call_is_the_pause(tmp_path):
    """The 1.5B model's restart: a fenced call, ADK took the call out, the fence was left."""
    trial = played(tmp_path, "restart-needs-approval", [["```json\n\n```", RESTART]])
    (turn,) = trial.turns
    assert turn.response_synthesized and turn.response == pause_text([RESTART])
    assert trial.scores["complete"].outcome == "pass"
