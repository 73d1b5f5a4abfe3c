"""The model-backed user's replies read as a person would (`playing.scenarios.user_reply`): the
protocol of its prompt is its own, never the agent's. A scripted user model (a stand-in, named as
such) that writes the protocol in markup, as Qwen2.5-Coder-1.5B did, and ends with a stray end
phrase: the conversation ends at once, nothing of the protocol reaches the agent, and no blame falls
on the agent; a user that cannot produce a usable move is an error trial, the user's failure."""

from __future__ import annotations

import json

import pytest
from scenario_models import duet
from test_scenarios_play import run, scenario_cases

from ops_eval.core.calls import ToolCall
from ops_eval.playing.scenarios import ModelUser, UserFailed, read_reply
from ops_eval.playing.session import PendingWrite

CASE = "scn-restart-after-risk"
MARKED_UP = [
    "**PROTOCOL: INTERVENE**\nBefore I approve: what is the risk of restarting it now?",
    "## PROTOCOL: ADVANCE\n`Understood.` Go ahead and restart inventory.",
    "**APPROVE:** Config v42 rolled back; restart risk explained and accepted.",
    "Thank you, that is all I needed.\n\n**PROTOCOL: END** The conversation with the AI Agent "
    "is over.",
]


def test_protocol_in_markup_never_reaches_the_agent_and_the_end_ends_it(tmp_path):
    recording = tmp_path / "both.jsonl"
    code, record, _ = run(
        duet(MARKED_UP), tmp_path, "markup", cases=[CASE], users="model", record=recording
    )
    (trial,) = record.trials
    assert code == 0 and trial.status == "passed", trial.scores
    assert [t.prompt for t in trial.turns][1:] == [
        "Before I approve: what is the risk of restarting it now?",
        "Understood. Go ahead and restart inventory.",
    ]
    assert trial.conversation.ended_by == "user" and trial.conversation.blame is None
    assert "PROTOCOL: END" in trial.conversation.reason
    (approval,) = trial.conversation.approvals
    assert approval.rationale == "Config v42 rolled back; restart risk explained and accepted."
    entries = [json.loads(x) for x in recording.read_text().splitlines()[1:]]
    agent_side = [json.dumps(e["contents"]) for e in entries]
    agent_side = [c for c in agent_side if "Simulated User" not in c]
    assert agent_side and not any("PROTOCOL" in c or "**" in c for c in agent_side)


def test_a_stray_end_phrase_ends_the_conversation_at_once(tmp_path):
    lines = ["Thanks, I will handle it myself. The conversation with the AI Agent is over."]
    code, record, _ = run(duet(lines), tmp_path, "stray", cases=[CASE], users="model")
    (trial,) = record.trials
    assert len(trial.turns) == 1 and trial.conversation.ended_by == "user"
    assert trial.conversation.blame is None and trial.error is None


def test_only_protocol_text_is_the_users_failure_not_the_agents(tmp_path):
    code, record, _ = run(
        duet(["**PROTOCOL: ANSWER**"]), tmp_path, "bare", cases=[CASE], users="model"
    )
    (trial,) = record.trials
    assert code == 3 and trial.status == "error"
    assert trial.conversation.ended_by == "user-failed" and trial.conversation.blame == "user"
    assert "only protocol text" in trial.error


def test_a_user_that_loops_is_the_users_failure(tmp_path):
    ask = "What is the risk of restarting it now?"
    code, record, _ = run(duet([ask] * 5), tmp_path, "loop", cases=[CASE], users="model")
    (trial,) = record.trials
    assert trial.status == "error" and trial.conversation.blame == "user"
    assert "the same message a third time" in trial.error
    assert [t.prompt for t in trial.turns][1:] == [ask, ask]


def test_approving_twice_without_a_usable_rationale_is_the_users_failure():
    (case,) = [c for c in scenario_cases() if c.eval_id == CASE]
    user = ModelUser(case, model=None)
    waiting = [PendingWrite("c1", ToolCall("restart_service", {"name": "inventory"}))]
    first = user.read("**APPROVE**", waiting)
    assert first.kind == "say"  # once: the agent may ask why
    with pytest.raises(UserFailed, match="approved twice in a row"):
        user.read("APPROVE", waiting)
    user = ModelUser(case, model=None)
    user.read("APPROVE", waiting)
    assert user.read("What is the risk?", waiting).kind == "say"
    assert user.read("APPROVE", waiting).kind == "say"  # not in a row: asked once more


@pytest.mark.parametrize(
    "said",
    [
        "</finished>",
        "Thanks! <finished>",
        "All good. </ FINISHED >",
        "**PROTOCOL: END**",
        "PROTOCOL: END\nThanks for the help.",
        "[PROTOCOL: END]",
        "END",
        "**END**",
        "END: the agent completed every request.",
        "Great. The conversation with the AI Agents is over.",
        "Thanks, this conversation is now finished.",
        "I'll end the conversation here.",
        "{{ stop_signal }}",
    ],
)
def test_an_end_in_any_form_ends(said):
    assert read_reply(said).ends is not None


@pytest.mark.parametrize(
    ("said", "words"),
    [
        ("**PROTOCOL: ADVANCE** What is the status of payments?",
         "What is the status of payments?"),
        ("PROTOCOL: CORRECT\nThat is wrong: inventory is down.",
         "That is wrong: inventory is down."),
        ("INTERVENE: restart payments instead.", "restart payments instead."),
        ("`ANSWER:` It is INC-002.", "It is INC-002."),
        ("# PROTOCOL: ANSWER\n\nIt is INC-002.", "It is INC-002."),
        ("Please end the outage soon.", "Please end the outage soon."),
        ("When will the incident end?", "When will the incident end?"),
        ("The END of the log shows errors.", "The END of the log shows errors."),
        ("restart_service for inventory, please", "restart_service for inventory, please"),
    ],
)  # fmt: skip
def test_labels_and_marks_are_taken_out_and_words_kept(said, words):
    reply = read_reply(said)
    assert reply.ends is None and reply.words == words


def test_a_decision_in_protocol_form_is_the_decision_and_template_copies_are_no_words():
    """Seen from Qwen2.5-Coder-1.5B as the user: `PROTOCOL: DENY` three times over (sent as
    words, it looped), and the agent's placeholder result copied in <tool_response> markup."""
    (case,) = [c for c in scenario_cases() if c.eval_id == CASE]
    user = ModelUser(case, model=None)
    waiting = [PendingWrite("c1", ToolCall("restart_service", {"name": "inventory"}))]
    assert user.read("**PROTOCOL: DENY**", waiting).kind == "deny"
    approved = user.read(
        "PROTOCOL: APPROVE: the config is rolled back and the risk is known", waiting
    )
    assert approved.kind == "approve"
    with pytest.raises(UserFailed, match="only protocol text"):
        user.read(
            '<tool_response> {"error": "This tool call requires confirmation."} </tool_response>',
            waiting,
        )
